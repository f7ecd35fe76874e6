import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import Testing

/// A home the patron can read but not write (a read-only mount, a home copied from a backup, another user's): the
/// commands that only read work and show what the writable home shows, the writing ones say the home is read-only,
/// and doctor says so too. Run as a second user (`runuser -u nobody`), since root writes through any mode.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: getuid() == 0, "acting as a second user (runuser -u nobody) needs root"))
struct ReadOnlyHomeCLITests {
    /// Runs `shelf args --home home` as `nobody`.
    private func runAsNobody(_ arguments: [String], home: URL, environment: [String: String] = [:]) async throws -> ShelfRunner.Result {
        try await ShelfRunner(home: home).run(
            arguments, environment: environment.merging(["HOME": "/nonexistent"]) { mine, _ in mine },
            wrapper: ["/usr/sbin/runuser", "-u", "nobody", "--"])
    }

    /// A copy of `home` that belongs to `nobody`, with no write permission anywhere in it.
    private func readOnlyCopy(of home: URL) throws -> URL {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-readonly-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let copy = parent.appendingPathComponent("home")
        try FileManager.default.copyItem(at: home, to: copy)
        for command in [["chown", "-R", "nobody:nogroup", copy.path], ["chmod", "-R", "a-w", copy.path]] {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = command
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(command)")
        }
        return copy
    }

    @Test func readingCommandsWorkAndWritingOnesSayTheHomeIsReadOnly() async throws {
        let fixture = try await CLIFixture.withSherlockDownloaded()
        defer { Task { await fixture.finish() } }
        let copy = try readOnlyCopy(of: fixture.shelf.home)
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let before = try Self.listing(copy)

        // What only reads shows what the writable home shows.
        for command in [["list"], ["show", "7d3c0002"], ["status"], ["list", "--json"], ["loans"]] {
            let original = try await fixture.shelf.run(command)
            let readOnly = try await runAsNobody(command, home: copy)
            #expect(readOnly.status == 0, "\(command): \(readOnly.stderr)")
            #expect(readOnly.stdout == original.stdout, "\(command)")
            #expect(!readOnly.stderr.contains("damaged") && !readOnly.stderr.contains("cannot create"), "\(command): \(readOnly.stderr)")
        }

        // The position stored here, without asking the library (what it says would have to be stored).
        let position = try await runAsNobody(["position", "7d3c0002"], home: copy)
        #expect(position.status == 0, "\(position.stderr)")
        #expect(position.stdout.hasPrefix("The Adventures of Sherlock Holmes — "), "\(position.stdout)")
        #expect(position.stdout.contains(
            "Showing the positions stored here only (the home is read-only, so the library's positions are not fetched into it)."),
            "\(position.stdout)")

        // The player plays, and says once that nothing of the session is saved.
        let output = copy.deletingLastPathComponent().appendingPathComponent("out.raw")
        #expect(chmod(copy.deletingLastPathComponent().path, 0o777) == 0)
        let listen = try await runAsNobody(
            ["listen", "7d3c0002", "--no-ui", "--for", "1s"], home: copy,
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": output.path])
        #expect(listen.status == 0, "\(listen.stderr)")
        #expect(listen.stdout.components(separatedBy: "The home is read-only: where you stop, the speed and bookmarks are not saved.").count == 2,
                "\(listen.stdout)")
        // (SDL's disk driver says what it writes; shelf says nothing more.)
        #expect(!listen.stderr.contains("shelf:"), "\(listen.stderr)")
        let played = try #require(try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int)
        #expect(played > 0)

        // What writes says the home is read-only, once, and changes nothing.
        for command in [["sync"], ["library", "set", "demo", "--keep", "2"], ["follow", "author", "Jane Austen"], ["archive", "7d3c0002"]] {
            let refused = try await runAsNobody(command, home: copy)
            #expect(refused.status == ShelfExit.storeFailure.rawValue, "\(command): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("the home \(copy.path) is read-only"), "\(command): \(refused.stderr)")
        }
        #expect(try Self.listing(copy) == before)

        // Doctor: read-only, not damaged.
        let doctor = try await runAsNobody(["doctor"], home: copy, environment: ["SDL_AUDIODRIVER": "dummy"])
        #expect(!doctor.stdout.contains("damaged"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("store: shelf.sqlite passes its check (read-only)"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("read-only"), "\(doctor.stdout)")
    }

    /// Every file of the home with its size and modification time.
    private static func listing(_ home: URL) throws -> [String] {
        let walker = try #require(FileManager.default.enumerator(atPath: home.path))
        return try walker.compactMap { $0 as? String }.sorted().map { path in
            let attributes = try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent(path).path)
            return "\(path) \(attributes[.size] ?? "") \(attributes[.modificationDate] ?? "")"
        }
    }
}
