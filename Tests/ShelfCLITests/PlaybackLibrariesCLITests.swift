import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import Testing

/// FFmpeg and SDL2 are opened with dlopen when `shelf listen` starts (Sources/CPlaybackLoader), not linked: every
/// other command runs without them, and a broken installation of either is one line naming it, not a crash.
@Suite(.timeLimit(.minutes(5))) struct PlaybackLibrariesCLITests {
    /// The libraries `shelf` itself needs to start, from `ldd`.
    static func linkedLibraries(of program: String) throws -> String {
        let ldd = ChildProcess()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [program]
        let pipe = Pipe()
        ldd.standardOutput = pipe
        try ldd.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        return output
    }

    /// Expects `shelf` to start without any of `libraries` (ldd finding SQLite, so that it read anything at all).
    static func expectShelfLinksNone(of libraries: [String]) throws {
        let linked = try linkedLibraries(of: ShelfRunner.executable.path)
        #expect(linked.contains("libsqlite3"), "ldd found nothing: \(linked)")
        for library in libraries {
            #expect(!linked.contains(library), "shelf links \(library)")
        }
    }

    /// An environment in which `library` (a file name, such as `libavutil.so.57`) is found first through
    /// LD_LIBRARY_PATH, in a folder of `home`, and cannot be opened; and that folder.
    static func brokenLibrary(_ library: String, in home: URL) throws -> (environment: [String: String], folder: URL) {
        let broken = home.appendingPathComponent("broken-libraries")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: broken.appendingPathComponent(library))
        return (["LD_LIBRARY_PATH": broken.path], broken)
    }

    @Test func shelfStartsWithoutFFmpegOrSDL() throws {
        try Self.expectShelfLinksNone(of: ["libavcodec", "libavformat", "libswresample", "libavutil", "libSDL2"])
    }

    /// A library that cannot be opened (here a broken libavutil.so.57 found first through LD_LIBRARY_PATH) stops the
    /// player with its one line and the installation's exit status, having played nothing.
    @Test func aBrokenFFmpegIsOneLineNamingIt() async throws {
        let fixture = try await CLIFixture.withSherlockDownloaded()
        do {
            let broken = try Self.brokenLibrary("libavutil.so.57", in: fixture.shelf.home)
            let result = try await fixture.shelf.run(
                ["listen", "7d3c0002", "--no-ui", "--for", "1s"],
                environment: broken.environment.merging(["SDL_AUDIODRIVER": "dummy"]) { $1 })
            #expect(result.status == ShelfExit.internalError.rawValue, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.contains("cannot load FFmpeg (libavformat.so.59") == true, "\(result.stderr)")
            #expect(lines.first?.contains("libavutil.so.57") == true, "\(result.stderr)")
            #expect(!result.stdout.contains("Playing"), "\(result.stdout)")
        }
        await fixture.finish()
    }
}
