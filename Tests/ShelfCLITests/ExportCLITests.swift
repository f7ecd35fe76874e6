import DemoLibrary
import Foundation
import GRDB
import ShelfCore
import ShelfPlayback
import Testing

/// `shelf export` as a patron runs it: the real binaries, the demo library on loopback, FFmpeg writing the m4b and
/// ffprobe reading it back.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ExportCLITests {
    /// A signed-in patron with the demo's manifest audiobooks in the catalog; Pride and Prejudice (open access,
    /// MP3 parts) downloaded when asked.
    private func ready(download: Bool = true) async throws -> CLIFixture {
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, partCount: 3))
        try await fixture.signIn()
        if download {
            let result = try await fixture.shelf.run(["download", "7d3c0001"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        return fixture
    }

    private func book(_ fixture: CLIFixture, _ id: String) throws -> Audiobook {
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        return try store.audiobook(try store.resolveEdition(id, in: try store.library(named: "demo")), home: home)
    }

    /// What ffprobe says about a file, as JSON.
    private func probe(_ file: URL) throws -> [String: Any] { try FFprobe.json(file) }

    private func files(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".m4b") }.sorted()
    }

    @Test func aCoverTheLibraryDoesNotHaveIsNamedAsSuchWithoutBlamingItsURL() async throws {
        let fixture = try await ready()
        // The library's entry names a cover image it does not serve.
        try await fixture.server.state.edit(id: "urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001") { $0.cover = "covers/gone.png" }
        _ = try await fixture.shelf.run(["sync", "--quiet", "--no-download"])
        // Downloaded before shelf kept covers with downloads: export fetches one.
        let directory = try book(fixture, "7d3c0001").parts[0].file.deletingLastPathComponent()
        try FileManager.default.removeItem(at: try #require(Cover.file(in: directory)))
        let out = fixture.shelf.home.appendingPathComponent("nocover.m4b")
        let result = try await fixture.shelf.run(["export", "7d3c0001", "--m4b", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("no cover: the library answered 404 for its cover image ("), "\(result.stderr)")
        #expect(result.stderr.contains("exported without one"))
        #expect(!result.stderr.contains("library's URL"), "\(result.stderr)")
        await fixture.finish()
    }

    @Test func aDownloadedBookBecomesOneM4BWithItsChaptersTagsAndCover() async throws {
        let fixture = try await ready()
        let out = fixture.shelf.home.appendingPathComponent("pride.m4b")
        let result = try await fixture.shelf.run(["export", "7d3c0001", "--m4b", out.path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        let export = try JSONDecoder().decode(M4BExport.self, from: Data(result.stdout.utf8))
        #expect(export.file == out.path)
        #expect(export.method == .encoded)
        #expect(export.cover)
        #expect(export.bytes == Int64(try Data(contentsOf: out).count))

        let book = try book(fixture, "7d3c0001")
        #expect(book.parts.count == 3)
        // Where each part starts in the book, by the lengths of the files.
        var starts: [Double] = []
        var total = 0.0
        for part in book.parts {
            starts.append(total)
            total += try AudioDecoder(path: part.file.path).duration ?? 0
        }
        let probe = try probe(out)
        let format = probe["format"] as? [String: Any] ?? [:]
        #expect(abs((Double(format["duration"] as? String ?? "") ?? 0) - total) < 0.5)
        let streams = probe["streams"] as? [[String: Any]] ?? []
        #expect(streams.contains { $0["codec_type"] as? String == "audio" && $0["codec_name"] as? String == "aac" })
        #expect(streams.contains { ($0["disposition"] as? [String: Int])?["attached_pic"] == 1 })
        let chapters = probe["chapters"] as? [[String: Any]] ?? []
        #expect(chapters.compactMap { ($0["tags"] as? [String: String])?["title"] } == book.chapters.map(\.title))
        #expect(chapters.count == 4, "Opening Credits, then a chapter per part")
        for (chapter, expected) in zip(chapters, book.chapters) {
            let start = Double(chapter["start_time"] as? String ?? "") ?? -1
            #expect(abs(start - (starts[expected.part] + expected.offset)) < 0.3, "\(expected.title) at \(start)")
        }
        let tags = format["tags"] as? [String: String] ?? [:]
        #expect(tags["title"] == "Pride and Prejudice")
        #expect(tags["album"] == "Pride and Prejudice")
        #expect(tags["artist"] == "Jane Austen")
        #expect(tags["composer"] == "Rosalind Hale")
        #expect(tags["genre"] == "Audiobook")
        #expect(tags["date"] == "1813")
        // The cover was fetched once and kept beside the parts.
        let directory = book.parts[0].file.deletingLastPathComponent()
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("cover.png").path))

        let before = try Data(contentsOf: out)
        let again = try await fixture.shelf.run(["export", "7d3c0001", "--m4b", out.path])
        #expect(again.status == ShelfExit.usage.rawValue)
        #expect(again.stderr == "shelf: \(out.path) already exists; give --force to replace it, or another file name\n")
        #expect(try Data(contentsOf: out) == before)

        let forced = try await fixture.shelf.run(["export", "7d3c0001", "--m4b", out.path, "--force", "--no-cover"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.hasPrefix("Exported Pride and Prejudice to \(out.path): 0:"))
        #expect(forced.stdout.contains("4 chapters, encoded to AAC"))
        #expect(!forced.stdout.contains("cover"))
        #expect(try files(in: fixture.shelf.home) == ["pride.m4b"])
        await fixture.finish()
    }

    /// The demo's single m4b file (AAC, chapter atoms, no circulation markup): downloaded without signing in and
    /// exported before it was ever played, its chapters read from the file and its packets copied, not re-encoded.
    @Test func aSingleM4BFileIsRemuxedWithTheChaptersInsideIt() async throws {
        let fixture = try await CLIFixture()
        #expect(try await fixture.shelf.run(["sync", "--quiet"]).status == 0)
        #expect(try await fixture.shelf.run(["download", "7d3c0018"]).status == 0)
        let titles = try #require(await fixture.server.state.title(id: "urn:uuid:7d3c0018-5a1e-4c6b-9f0e-d0c5e1f00018")?
            .singleFile?.chapters)
        let out = fixture.shelf.home.appendingPathComponent("alice.m4b")
        let result = try await fixture.shelf.run(["export", "7d3c0018", "--m4b", out.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("3 chapters,") && result.stdout.contains("audio copied without re-encoding"), "\(result.stdout)")
        let source = try book(fixture, "7d3c0018").parts[0].file
        let original = try FFprobe.read(source)
        let probe = try FFprobe.read(out)
        #expect(probe.chapterTitles == titles)
        #expect(zip(probe.chapterStarts, original.chapterStarts).allSatisfy { abs($0 - $1) < 0.1 }, "\(probe.chapterStarts)")
        #expect(abs(probe.duration - original.duration) < 0.1)
        #expect(probe.codecs.first == "aac")
        #expect(probe.tags["title"] == "Alice's Adventures in Wonderland" && probe.tags["artist"] == "Lewis Carroll")
        await fixture.finish()
    }

    @Test func titlesNotDownloadedProtectedOrNotAudiobooksAreRefused() async throws {
        let fixture = try await ready(download: false)
        let out = fixture.shelf.home.appendingPathComponent("out.m4b").path

        let never = try await fixture.shelf.run(["export", "7d3c0005", "--m4b", out])
        #expect(never.status == ShelfExit.notAllowed.rawValue)
        #expect(never.stderr == "shelf: A Christmas Carol is not downloaded; run `shelf download 7d3c0005` first\n")

        #expect(try await fixture.shelf.run(["download", "7d3c0006"]).status == 0)
        try FileManager.default.removeItem(at: try book(fixture, "7d3c0006").parts[1].file)
        let partly = try await fixture.shelf.run(["export", "7d3c0006", "--m4b", out])
        #expect(partly.status == ShelfExit.notAllowed.rawValue)
        #expect(partly.stderr == "shelf: The Time Machine is not fully downloaded (2 of 3 parts); run `shelf download 7d3c0006` first\n")

        let ebook = try await fixture.shelf.run(["export", "7d3c0007", "--m4b", out])
        #expect(ebook.status == ShelfExit.protectedContent.rawValue)
        #expect(ebook.stderr.contains("Little Women is an ebook, not an audiobook"))

        // A title the catalog marks as protected by DRM, even with its files on disk.
        #expect(try await fixture.shelf.run(["download", "7d3c0009"]).status == 0)
        let store = try Store(home: Home(directory: fixture.shelf.home))
        try store.write { db in
            try db.execute(
                sql: "UPDATE edition SET protection = 'Findaway' WHERE entry_id = ?",
                arguments: ["urn:uuid:7d3c0009-5a1e-4c6b-9f0e-d0c5e1f00009"])
        }
        let protected = try await fixture.shelf.run(["export", "7d3c0009", "--m4b", out])
        #expect(protected.status == ShelfExit.protectedContent.rawValue)
        #expect(protected.stderr == "shelf: Dracula is protected by Findaway DRM; shelf can play open and bearer-token audiobooks only\n")
        #expect(try files(in: fixture.shelf.home).isEmpty)
        await fixture.finish()
    }

    @Test func aDamagedPartFailsWithItsReasonAndLeavesNoFile() async throws {
        let fixture = try await ready()
        let out = fixture.shelf.home.appendingPathComponent("out.m4b")
        let parts = try book(fixture, "7d3c0001").parts
        // The last part cut in half: its header still declares the whole length, so the export notices, with the
        // m4b already half written.
        let last = parts[2].file
        let bytes = try Data(contentsOf: last)
        try bytes.prefix(bytes.count / 2).write(to: last)
        let cut = try await fixture.shelf.run(["export", "7d3c0001", "--m4b", out.path])
        #expect(cut.status == ShelfExit.exportFailed.rawValue)
        // The cover the download kept goes in; nothing is fetched, and the one line is the failure.
        let lines = cut.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.last?.hasPrefix("shelf: cannot export Pride and Prejudice: \(last.path) is cut short: its audio ends at ") == true)
        #expect(cut.stderr.hasSuffix("; download it again (`shelf archive 7d3c0001`, then `shelf download 7d3c0001`)\n"))
        #expect(try files(in: fixture.shelf.home).isEmpty)

        // A part that is not audio at all: FFmpeg's own words (the cover is on disk now, so no note).
        try Data(repeating: 0x41, count: 8192).write(to: parts[1].file)
        let garbage = try await fixture.shelf.run(["export", "7d3c0001", "--m4b", out.path, "--json"])
        #expect(garbage.status == ShelfExit.exportFailed.rawValue)
        #expect(garbage.stderr.hasPrefix("shelf: cannot export Pride and Prejudice: cannot open \(parts[1].file.path): "))
        #expect(garbage.stderr.hasSuffix("; download it again (`shelf archive 7d3c0001`, then `shelf download 7d3c0001`)\n"))
        // Under --json the failure is the JSON document on standard output.
        let object = try JSONSerialization.jsonObject(with: Data(garbage.stdout.utf8)) as? [String: Any]
        #expect(object?["exit"] as? Int == Int(ShelfExit.exportFailed.rawValue))
        #expect((object?["error"] as? String)?.hasPrefix("cannot export Pride and Prejudice: cannot open ") == true)
        #expect(try files(in: fixture.shelf.home).isEmpty)
        await fixture.finish()
    }
}
