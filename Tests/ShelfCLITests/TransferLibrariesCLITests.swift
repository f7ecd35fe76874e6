import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// libcurl and OpenSSL's libcrypto are opened with dlopen on the first transfer or digest (Sources/CTransferLoader),
/// not linked: the commands that stay on this computer start without their thirty-odd libraries, and a broken libcurl
/// stops only what goes to the network, with one line naming it.
@Suite(.timeLimit(.minutes(5))) struct TransferLibrariesCLITests {
    @Test func shelfStartsWithoutLibcurlOrLibcrypto() throws {
        try PlaybackLibrariesCLITests.expectShelfLinksNone(of: ["libcurl", "libcrypto", "libssl", "libgnutls", "libkrb5"])
    }

    /// A libcurl.so.4 that cannot be opened, found first through LD_LIBRARY_PATH: the titles already synced are
    /// still listed; a sync is one line naming the library, with the installation's exit status.
    @Test func aBrokenLibcurlStopsOnlyWhatGoesToTheNetwork() async throws {
        let fixture = try await CLIFixture()
        do {
            let synced = try await fixture.shelf.run(["sync", "--quiet"])
            #expect(synced.status == 0, "\(synced.stderr)")
            let (environment, broken) = try PlaybackLibrariesCLITests.brokenLibrary("libcurl.so.4", in: fixture.shelf.home)

            let list = try await fixture.shelf.run(["list"], environment: environment)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout.contains("The Adventures of Sherlock Holmes"), "\(list.stdout)")

            let sync = try await fixture.shelf.run(["sync"], environment: environment)
            #expect(sync.status == ShelfExit.internalError.rawValue, "\(sync.stderr)")
            let lines = sync.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(sync.stderr)")
            #expect(lines.first?.contains("cannot load libcurl.so.4") == true, "\(sync.stderr)")
            #expect(lines.first?.contains(broken.path) == true, "\(sync.stderr)")
            #expect(lines.first?.contains("install Debian's libcurl4") == true, "\(sync.stderr)")
        }
        await fixture.finish()
    }
}
