import DemoLibrary
import Foundation
import ShelfCore
import ShelfSpawn
import Testing

/// The cover kept with every download and drawn where a terminal can show it: by chafa as character cells, as a
/// kitty image, never on a pipe or when turned off. Terminals are recorded with `script` (a pseudo-terminal) and
/// tmux.
@Suite(.serialized, .timeLimit(.minutes(5))) struct CoverCLITests {
    static let available = FileManager.default.isExecutableFile(atPath: "/usr/bin/chafa")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

    private func downloaded() async throws -> (CLIFixture, URL) {
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, partCount: 4))
        try await fixture.signIn()
        let result = try await fixture.shelf.run(["download", "7d3c0002"])
        #expect(result.status == 0, "\(result.stderr)")
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let edition = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        return (fixture, Home(directory: fixture.shelf.home).files(library: edition.libraryID, edition: edition.rowID))
    }

    /// `shelf show` on a pseudo-terminal, as `script` records it: everything written, escapes included.
    private func recorded(_ fixture: CLIFixture, _ arguments: String, environment: [String: String]) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        let command = "\(ShelfRunner.executable.path) \(arguments) --home \(fixture.shelf.home.path)"
        process.arguments = ["-q", "-e", "-c", command, "/dev/null"]
        var env = ProcessInfo.processInfo.environment
        env["NO_COLOR"] = nil
        env["SHELF_COVER"] = nil
        env["KITTY_WINDOW_ID"] = nil
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        let data = try process.runReadingOutput()
        #expect(process.terminationStatus == 0, "\(String(decoding: data, as: UTF8.self))")
        return String(decoding: data, as: UTF8.self)
    }

    @Test(.enabled(if: CoverCLITests.available, "needs chafa and script (Scripts/setup)"))
    func theDownloadKeepsTheCoverAndShowDrawsItOnlyOnATerminal() async throws {
        let (fixture, files) = try await downloaded()
        let cover = try #require(Cover.file(in: files), "no cover kept beside the parts")
        #expect(cover.lastPathComponent == "cover.png")
        #expect(try Data(contentsOf: cover).starts(with: [0x89, 0x50, 0x4E, 0x47]))

        // A pipe: no escape at all.
        let piped = try await fixture.shelf.run(["show", "7d3c0002"], environment: ["TERM": "xterm-256color"])
        #expect(piped.status == 0 && !piped.stdout.contains("\u{1B}"), "\(piped.stdout)")
        // A colour terminal: the cover in character cells above the title.
        let cells = try recorded(fixture, "show 7d3c0002", environment: ["TERM": "xterm-256color"])
        let title = try #require(cells.range(of: "The Adventures of Sherlock Holmes"))
        #expect(cells[..<title.lowerBound].contains("\u{1B}[38;5;"), "\(cells.prefix(400).debugDescription)")
        // kitty: an image, by kitty's graphics protocol.
        let kitty = try recorded(fixture, "show 7d3c0002", environment: ["TERM": "xterm-kitty"])
        #expect(kitty.contains("\u{1B}_G"), "\(kitty.prefix(200).debugDescription)")
        // Turned off three ways, and a dumb terminal: text only.
        for (arguments, environment) in [("show 7d3c0002 --no-cover", ["TERM": "xterm-kitty"]),
                                         ("show 7d3c0002", ["TERM": "xterm-kitty", "SHELF_COVER": "off"]),
                                         ("show 7d3c0002", ["TERM": "xterm-256color", "NO_COLOR": "1"]),
                                         ("show 7d3c0002", ["TERM": "dumb"])] {
            let text = try recorded(fixture, arguments, environment: environment)
            #expect(!text.contains("\u{1B}_G") && !text.contains("\u{1B}[38;5;"), "\(arguments) \(environment)")
            #expect(text.contains("The Adventures of Sherlock Holmes"))
        }
        await fixture.finish()
    }

    /// In a window of 120 columns the player draws the cover to the right of its text; at 80 it has no room.
    @Test(.enabled(if: CoverCLITests.available && FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"),
                   "needs chafa and tmux (Scripts/setup)"))
    func thePlayerDrawsTheCoverBesideItsTextInAWideWindow() async throws {
        let (fixture, _) = try await downloaded()
        let home = fixture.shelf.home.path
        let command = "env -u NO_COLOR -u SHELF_COVER TERM=xterm-256color SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE=\(home)/tmux.raw "
            + "\(ShelfRunner.executable.path) listen 7d3c0002 --home \(home)"
        for (columns, drawn) in [(120, true), (80, false)] {
            let tmux = Tmux()
            defer { tmux.kill() }
            try await offloaded { try tmux.start(command, columns: columns, rows: 30) }
            let screen = try await offloaded { try tmux.waitFor("Chapter 1 (1 of 4)") }
            #expect(screen.contains("The Adventures of Sherlock Holmes"), "\(screen)")
            // chafa's cells are coloured (a 256-colour foreground or background) to the right of the title; the
            // player's own text has none of those colours.
            let coloured = try await offloaded { try tmux.screenWithEscapes() }
            let title = coloured.split(separator: "\n").first { $0.contains("The Adventures of Sherlock Holmes") } ?? ""
            let after = title.range(of: "The Adventures of Sherlock Holmes").map { title[$0.upperBound...] } ?? ""
            #expect(after.contains("8;5;") == drawn, "\(columns) columns:\n\(coloured.debugDescription)")
            _ = try await tmux.press("q", until: "Position saved")
        }
        await fixture.finish()
    }
}

extension CoverCLITests {
    /// A book that came as one mp3 with its cover inside: the download keeps that picture, not the catalog's.
    @Test func aSingleFileBooksOwnPictureIsItsCover() async throws {
        let fixture = try await CLIFixture()
        #expect(try await fixture.shelf.run(["sync"]).status == 0)
        let scratch = fixture.shelf.home.deletingLastPathComponent().appendingPathComponent("cover-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let picture = scratch.appendingPathComponent("inside.png")
        let book = scratch.appendingPathComponent("book.mp3")
        for arguments in [["-f", "lavfi", "-i", "testsrc=size=40x60:rate=1", "-frames:v", "1", picture.path],
                          ["-f", "lavfi", "-i", "sine=duration=2", "-i", picture.path, "-map", "0:a", "-map", "1:v",
                           "-c:a", "libmp3lame", "-id3v2_version", "3", "-c:v", "copy", "-disposition:v:0", "attached_pic",
                           book.path]] {
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            process.arguments = ["-nostdin", "-loglevel", "error", "-y"] + arguments
            process.standardInput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
        }
        try await fixture.server.state.replaceSingleFile("urn:uuid:7d3c0019-5a1e-4c6b-9f0e-d0c5e1f00019",
                                                         with: Array(try Data(contentsOf: book)))
        let download = try await fixture.shelf.run(["download", "7d3c0019"])
        #expect(download.status == 0, "\(download.stderr)")
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let edition = try store.resolveEdition("7d3c0019", in: try store.library(named: "demo"))
        let kept = try #require(Cover.file(in: Home(directory: fixture.shelf.home).files(library: edition.libraryID,
                                                                                           edition: edition.rowID)))
        #expect(try Data(contentsOf: kept) == (try Data(contentsOf: picture)))
        await fixture.finish()
    }
}
