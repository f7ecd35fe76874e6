import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import Testing

/// Recovering by itself: interrupted downloads, a full disk, a server that keeps failing, a server that overstates.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RecoveryCLITests {
    private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"

    private func ready() async throws -> CLIFixture {
        let fixture = try await CLIFixture()
        try await fixture.signIn()
        return fixture
    }

    /// Bytes in the `.part` files of `directory`.
    private func partialBytes(in directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".part") }.reduce(0) { total, name in
            let path = directory.appendingPathComponent(name).path
            return total + (((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0)
        }
    }

    /// Waits until the download under way has written more bytes into its `.part` files than `before`.
    private func waitForNewBytes(in directory: URL, before: Int) async throws {
        if try await !eventually({ partialBytes(in: directory) > before }) {
            Issue.record("no part file got new bytes")
        }
    }

    /// Waits until `file` holds at least one byte.
    private func waitForBytes(in file: URL) async throws {
        let grew = try await eventually {
            ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.intValue ?? 0 > 0
        }
        if !grew { Issue.record("\(file.lastPathComponent) got no bytes") }
    }

    @Test func interruptAndTerminateMidDownloadPutTheTitleBackAndArchiveClearsTheParts() async throws {
        let fixture = try await ready()
        await fixture.server.state.setAudioFaults(AudioFaults(bytesPerSecond: 1_000), for: sherlock)
        let files = try fixture.files(of: "7d3c0002")
        for signal in [SIGINT, SIGTERM] {
            let before = partialBytes(in: files)
            let (process, out, err) = try fixture.shelf.start(["download", "7d3c0002"])
            try await waitForNewBytes(in: files, before: before)
            kill(process.processIdentifier, signal)
            let stderr = try await offloaded {
                _ = out.fileHandleForReading.readDataToEndOfFile()
                let data = err.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return String(decoding: data, as: UTF8.self)
            }
            #expect(process.terminationStatus == 128 + signal, "signal \(signal): \(stderr)")
            #expect(stderr.contains("download interrupted; The Adventures of Sherlock Holmes is back to New"), "\(stderr)")
            let show = try await fixture.shelf.run(["show", "7d3c0002"])
            #expect(show.stdout.contains("State         New"), "\(show.stdout)")
        }
        // The half-downloaded parts are there, and archive clears them though the title was never downloaded.
        #expect(FileManager.default.fileExists(atPath: files.path))
        let archive = try await fixture.shelf.run(["archive", "7d3c0002"])
        #expect(archive.status == 0, "\(archive.stderr)")
        #expect(archive.stdout.contains("Removed the half-downloaded files of The Adventures of Sherlock Holmes"))
        #expect(!FileManager.default.fileExists(atPath: files.path))
        // Nothing left to clear now: archive says so, as before.
        #expect(try await fixture.shelf.run(["archive", "7d3c0002"]).status == ShelfExit.notAllowed.rawValue)
        await fixture.server.state.setAudioFaults(AudioFaults(), for: sherlock)
        #expect(try await fixture.shelf.run(["download", "7d3c0002"]).status == 0)
        await fixture.finish()
    }

    @Test func anOverstatingServerEndsWithTheServersBytes() async throws {
        let fixture = try await ready()
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [1], extraContentLength: 300), for: sherlock)
        let download = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(download.status == 0, "\(download.stderr)")
        await fixture.server.state.setAudioFaults(AudioFaults(), for: sherlock)
        let files = try fixture.files(of: "7d3c0002")
        let manifest = try ShelfCore.AudiobookManifest.parse(
            Data(contentsOf: files.appendingPathComponent("manifest.json")), url: files)
        let remote = try await offloaded { try HTTPClient().request(URL(string: manifest.parts[0].href)!).body }
        #expect(try Data(contentsOf: files.appendingPathComponent("part-001.mp3")) == remote)
        await fixture.finish()
    }

    @Test func aKillBetweenTheLastWriteAndTheRenameEndsWithTheServersBytes() async throws {
        let fixture = try await ready()
        // The server's bytes of part 1, as another patron's shelf downloads them.
        let other = ShelfRunner()
        defer { other.cleanUp() }
        _ = try await other.run(["library", "add", "demo", fixture.url.absoluteString])
        _ = try await other.run(["sync", "--quiet"])
        _ = try await other.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        _ = try await other.run(["sync", "--quiet"])
        #expect(try await other.run(["download", "7d3c0002"]).status == 0)
        let otherStore = try Store(home: Home(directory: other.home))
        let otherFiles = Home(directory: other.home).files(
            library: try otherStore.library(named: "demo").id,
            edition: try otherStore.resolveEdition("7d3c0002", in: try otherStore.library(named: "demo")).rowID)
        let whole = try Data(contentsOf: otherFiles.appendingPathComponent("part-001.mp3"))

        // This shelf is killed while part 1 trickles in; then the file gets every byte, as if the kill came between
        // the last write and the rename.
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [1], bytesPerSecond: 2_000), for: sherlock)
        let files = try fixture.files(of: "7d3c0002")
        let (process, _, _) = try fixture.shelf.start(["download", "7d3c0002", "--quiet"])
        let partial = files.appendingPathComponent("part-001.mp3.part")
        // Part 1 itself must have begun: the other parts run beside it at full speed and give bytes first, and a
        // kill before part 1's first byte leaves an empty part without a validator.
        try await waitForBytes(in: partial)
        kill(process.processIdentifier, SIGKILL)
        try await offloaded { process.waitUntilExit() }
        #expect(FileManager.default.fileExists(atPath: partial.path + ".json"), "the validator is saved beside the part")
        try whole.write(to: partial)
        await fixture.server.state.setAudioFaults(AudioFaults(), for: sherlock)
        // The killed connection's last chunk may still be counted by the server: let it settle first.
        try await Task.sleep(for: .milliseconds(500))
        let sent = await fixture.server.state.partBytesSent(sherlock, part: 1)
        let rangesBefore = await fixture.server.state.partRangeRequestCount(sherlock, part: 1)

        let later = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(later.status == 0, "\(later.stderr)")
        #expect(later.stdout.hasPrefix("Downloaded The Adventures of Sherlock Holmes"), "\(later.stdout)")
        #expect(try Data(contentsOf: files.appendingPathComponent("part-001.mp3")) == whole)
        #expect(!FileManager.default.fileExists(atPath: partial.path))
        // Asked past the end, the server's 416 said the file was whole: no byte of part 1 was sent again.
        let resent = await fixture.server.state.partBytesSent(sherlock, part: 1) - sent
        let ranges = await fixture.server.state.partRangeRequestCount(sherlock, part: 1)
        #expect(resent == 0, "\(resent) bytes of \(whole.count) sent again")
        #expect(ranges == rangesBefore + 1)
        await fixture.finish()
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskIsNamedAndTheDownloadResumesOnceThereIsRoom() async throws {
        let mount = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        let mounted = try Self.spawn(["/bin/mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mount.path])
        try #require(mounted == 0, "mount -t tmpfs failed")
        defer {
            _ = try? Self.spawn(["/bin/umount", mount.path])
            try? FileManager.default.removeItem(at: mount)
        }
        let server = DemoLibraryServer()
        let url = try await server.start()
        try await server.state.prepareAudio()
        let shelf = ShelfRunner(home: mount.appendingPathComponent("home"))
        _ = try await shelf.run(["library", "add", "demo", url.absoluteString])
        _ = try await shelf.run(["sync", "--quiet"])
        _ = try await shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        let synced = try await shelf.run(["sync", "--quiet", "--no-download"])
        try #require(synced.status == 0, "\(synced.stderr)")
        // Fill the disk but for a few kilobytes: less than the book, more than the database needs.
        let free = try #require(DiskSpace.available(at: mount.path))
        let filler = mount.appendingPathComponent("filler")
        try Data(count: Int(free) - 24 * 1024).write(to: filler)
        // No margin kept (--keep-free 0): the writes themselves meet the full disk, which is what is tested here.
        let full = try await shelf.run(["download", "7d3c0002", "--keep-free", "0"])
        #expect(full.status == ShelfExit.diskFull.rawValue, "\(full.stderr)")
        #expect(full.stderr.contains("the disk at \(mount.path) is full"), "\(full.stderr)")
        #expect(!full.stderr.contains("database error"))
        #expect(full.stderr.split(separator: "\n").count == 1, "\(full.stderr)")
        // Room made: the next download completes, and the title is not stuck half-way.
        try FileManager.default.removeItem(at: filler)
        let again = try await shelf.run(["download", "7d3c0002", "--keep-free", "0"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try await shelf.run(["show", "7d3c0002"]).stdout.contains("State         Downloaded"))
        await server.stop()
    }

    @Test func aLibraryThatKeepsFailingIsReportedOnceThenBackedOffUntilItRecovers() async throws {
        let fixture = try await ready()
        // Page 2 fails with a Retry-After too long to wait for within a run, so each sync fails at once.
        await fixture.server.state.setFaults(PageFaults(status: 503, retryAfter: "3600"), page: 2)
        let first = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(first.status == ShelfExit.serverError.rawValue)
        #expect(first.stderr.contains("sync stopped at page 2 of the catalog"), "\(first.stderr)")
        // The second failure in a row is not news under --quiet: nothing printed, for cron to mail.
        let second = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(second.status == ShelfExit.serverError.rawValue)
        #expect(second.stdout.isEmpty && second.stderr.isEmpty, "\(second.stdout)\(second.stderr)")
        // Now it backs off: not tried, exit 0, one short line without --quiet and none with it.
        let requests = await fixture.server.state.requestCount("/crawlable?page=2")
        let quiet = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
        let told = try await fixture.shelf.run(["sync"])
        #expect(told.status == 0)
        #expect(told.stdout.hasPrefix("Skipped: demo failed 2 times in a row; not trying again before "), "\(told.stdout)")
        #expect(await fixture.server.state.requestCount("/crawlable?page=2") == requests)
        // The library is back; `--now` tries at once, and the recovery is told once, even under --quiet.
        await fixture.server.state.setFaults(PageFaults(), page: 2)
        let now = try await fixture.shelf.run(["sync", "--now", "--quiet"])
        #expect(now.status == 0, "\(now.stderr)")
        #expect(now.stdout.hasPrefix("demo: syncing works again, after 2 failed syncs since "), "\(now.stdout)")
        let after = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(after.status == 0 && after.stdout.isEmpty && after.stderr.isEmpty, "\(after.stdout)\(after.stderr)")
        await fixture.finish()
    }

    /// The back-off is for a library whose server fails: a page the library refuses (the patron's to mend) never
    /// starts one, and the patron's own fix, new settings or a sign-in, ends one at once, so the sync after the fix
    /// is not skipped.
    @Test func onlyTheServersFailuresBackALibraryOffAndThePatronsFixEndsIt() async throws {
        let fixture = try await ready()
        let state = fixture.server.state
        let asked = { await state.requestCount("/crawlable?page=2") }
        await state.setFaults(PageFaults(status: 401), page: 2)
        for _ in 0..<3 {
            let before = await asked()
            let refused = try await fixture.shelf.run(["sync", "--quiet"])
            #expect(refused.status == ShelfExit.notPermitted.rawValue, "\(refused.stderr)")
            #expect(await asked() > before, "a refusal backed the library off")
        }

        // The server fails twice: backed off, and --json says so.
        await state.setFaults(PageFaults(status: 503, retryAfter: "3600"), page: 2)
        for _ in 0..<2 { #expect(try await fixture.shelf.run(["sync", "--quiet"]).status == ShelfExit.serverError.rawValue) }
        let before = await asked()
        let skipped = try await fixture.shelf.run(["sync", "--json"])
        #expect(skipped.status == 0, "\(skipped.stderr)")
        let summaries = try #require(try JSONSerialization.jsonObject(with: Data(skipped.stdout.utf8)) as? [[String: Any]])
        #expect(summaries.count == 1 && summaries[0]["skipped"] as? Bool == true, "\(skipped.stdout)")
        #expect(summaries[0]["nextTryAt"] is String, "\(skipped.stdout)")
        #expect(await asked() == before)

        // New settings end the back-off: the next sync asks again, and the library works again.
        await state.setFaults(PageFaults(), page: 2)
        #expect(try await fixture.shelf.run(["library", "set", "demo", "--keep", "5"]).status == 0)
        let afterSet = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(afterSet.status == 0 && afterSet.stderr.isEmpty, "\(afterSet.stderr)")
        #expect(await asked() > before)

        // Backed off again; signing in ends it too.
        await state.setFaults(PageFaults(status: 503, retryAfter: "3600"), page: 2)
        for _ in 0..<2 { _ = try await fixture.shelf.run(["sync", "--quiet"]) }
        #expect(try await fixture.shelf.run(["sync"]).stdout.hasPrefix("Skipped: demo failed 2 times in a row"))
        await state.setFaults(PageFaults(), page: 2)
        let login = try await fixture.shelf.run(["login", "--username", "demo", "--password-stdin"], input: "1234\n")
        #expect(login.status == 0, "\(login.stderr)")
        let beforeLogin = await asked()
        let afterLogin = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(afterLogin.status == 0 && afterLogin.stderr.isEmpty, "\(afterLogin.stderr)")
        #expect(await asked() > beforeLogin)

        // Backed off again; `library set` ends it whichever setting it changes, --sync-positions alone too.
        await state.setFaults(PageFaults(status: 503, retryAfter: "3600"), page: 2)
        for _ in 0..<2 { _ = try await fixture.shelf.run(["sync", "--quiet"]) }
        #expect(try await fixture.shelf.run(["sync"]).stdout.hasPrefix("Skipped: demo failed 2 times in a row"))
        await state.setFaults(PageFaults(), page: 2)
        let positions = try await fixture.shelf.run(["library", "set", "demo", "--sync-positions", "off"])
        #expect(positions.status == 0, "\(positions.stderr)")
        let beforePositions = await asked()
        let afterPositions = try await fixture.shelf.run(["sync", "--quiet"])
        #expect(afterPositions.status == 0 && afterPositions.stderr.isEmpty, "\(afterPositions.stderr)")
        #expect(await asked() > beforePositions)

        // A fresh home whose library wants a sign-in (a catalog behind HTTP Basic): the sign-in wanted is the
        // patron's to fix, so every sync asks the library again, and the first after `login` reads it.
        let maze = try FeedMaze(basic: ("card", "pin")) { path, _ in
            path == "/" ? .atom(MazeFeed.books(id: "urn:signed", [("b1", "One"), ("b2", "Two")])) : nil
        }
        let fresh = ShelfRunner()
        defer {
            maze.stop()
            fresh.cleanUp()
        }
        #expect(try await fresh.run(["library", "add", "mylib", maze.base + "/"]).status == 0)
        for run in 1...2 {
            let before = maze.paths.count
            let wanted = try await fresh.run(["sync"])
            #expect(wanted.status == ShelfExit.needsSignIn.rawValue, "run \(run): \(wanted.stdout)\(wanted.stderr)")
            #expect(wanted.stderr.contains("run `shelf login mylib`") && wanted.stdout.isEmpty, "run \(run): \(wanted.stdout)")
            #expect(maze.paths.count > before, "run \(run) did not ask the library")
        }
        let signedIn = try await fresh.run(["login", "--username", "card", "--password-stdin"], input: "pin\n")
        #expect(signedIn.status == 0 && signedIn.stdout.hasSuffix("Next: shelf sync\n"), "\(signedIn.stdout)\(signedIn.stderr)")
        let synced = try await fresh.run(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout == "2 new, 0 updated, 0 removed\n", "\(synced.stdout)")
        let listed = try await fresh.run(["list"])
        #expect(listed.stdout.contains("One") && listed.stdout.contains("Two") && !listed.stdout.contains("Nothing yet"),
                "\(listed.stdout)")
        await fixture.finish()
    }

    @Test func aTitleWhoseDownloadKeepsFailingWaitsItsTurnButNotWhenNamed() async throws {
        let fixture = try await ready()
        await fixture.server.state.setAudioFaults(AudioFaults(missingParts: [2]), for: sherlock)
        #expect(try await fixture.shelf.run(["download", "7d3c0002"]).status == ShelfExit.serverError.rawValue)
        #expect(try await fixture.shelf.run(["download", "7d3c0002"]).status == ShelfExit.serverError.rawValue)
        // Downloading every loan (what cron runs) skips it now, without failing.
        let before = await fixture.server.state.partRequestCount(sherlock, part: 1)
        let all = try await fixture.shelf.run(["download", "--all"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.stdout.contains("Skipped The Adventures of Sherlock Holmes: its download failed 2 times in a row"), "\(all.stdout)")
        #expect(await fixture.server.state.partRequestCount(sherlock, part: 1) == before)
        // Named by hand, it is tried at once, and succeeds once the part is back.
        await fixture.server.state.setAudioFaults(AudioFaults(), for: sherlock)
        let named = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stdout.hasPrefix("Downloaded The Adventures of Sherlock Holmes"))
        await fixture.finish()
    }

    private static func spawn(_ arguments: [String]) throws -> Int32 {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
