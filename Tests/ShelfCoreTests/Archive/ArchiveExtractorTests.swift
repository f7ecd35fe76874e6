import Foundation
import Testing

@testable import ShelfCore

@Suite("Archive extractor: normal archives", .timeLimit(.minutes(5)))
struct ArchiveExtractorTests {
    /// A small audiobook's worth of nested files; the parts are noise so they do not compress.
    static let book: [String: Data] = [
        "manifest.json": Data(#"{"readingOrder":[{"href":"audio/part1.mp3"}]}"#.utf8),
        "audio/part1.mp3": noise(300_000, seed: 1),
        "audio/part2.mp3": noise(70_001, seed: 2),
        "audio/extra/notes.txt": Data("liner notes\n".utf8),
        "cover.jpg": noise(4_096, seed: 3),
        "empty.txt": Data(),
        "Chapitre 1 – Début.mp3": noise(1_000, seed: 4),
    ]

    @Test("zip, tar and tar.gz with nested folders extract byte-identical", arguments: [
        ArchiveWriter.Format.zip, .tar, .tarGzip,
    ])
    func roundTrip(format: ArchiveWriter.Format) throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("book", format) { writer in
            try writer.addDirectory("audio/")
            try writer.addDirectory("audio/extra/")
            // Odd permissions on purpose: none of them may reach the disk.
            for (path, contents) in Self.book.sorted(by: { $0.key < $1.key }) {
                try writer.addFile(path, contents, mode: path.hasSuffix(".txt") ? 0o4777 : 0o600)
            }
        }
        let destination = scratch.url("out")
        let report = try ArchiveExtractor().extract(archive, into: destination)

        #expect(try scratch.tree(destination) == Self.book)
        #expect(Set(report.files.map(\.path)) == Set(Self.book.keys))
        for file in report.files { #expect(file.size == Int64(Self.book[file.path]!.count), "\(file.path)") }
        #expect(report.totalBytes == Int64(Self.book.values.map(\.count).reduce(0, +)))
        #expect(try scratch.permissions(destination.appendingPathComponent("audio/extra/notes.txt")) == 0o644)
        #expect(try scratch.permissions(destination.appendingPathComponent("audio/part1.mp3")) == 0o644)
        #expect(try scratch.permissions(destination.appendingPathComponent("audio/extra")) == 0o755)
        #expect(try scratch.permissions(destination) == 0o755)
        #expect(try scratch.listing() == ["book", "out"])
    }

    @Test("folders implied only by file paths, and a leading ./ entry, are created")
    func impliedFolders() throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("parts.tar.gz", .tarGzip) { writer in
            try writer.addDirectory("./")
            try writer.addFile("./a/b/c/part.mp3", Data("x".utf8))
            try writer.addFile("a//b/./d.mp3", Data("y".utf8))
        }
        let report = try ArchiveExtractor().extract(archive, into: scratch.url("out"))
        #expect(report.files.map(\.path) == ["a/b/c/part.mp3", "a/b/d.mp3"])
        #expect(try scratch.tree(scratch.url("out")) == ["a/b/c/part.mp3": Data("x".utf8), "a/b/d.mp3": Data("y".utf8)])
        #expect(try scratch.permissions(scratch.url("out/a/b")) == 0o755)
    }

    @Test("a packaged audiobook's manifest is found at the top or in a single top-level folder")
    func packagedManifest() throws {
        let scratch = try ArchiveScratch()
        let extractor = ArchiveExtractor()
        let flat = try scratch.archive("flat.audiobook", .zip) { writer in
            try writer.addFile("manifest.json", Self.book["manifest.json"]!)
            try writer.addFile("audio/part1.mp3", Self.book["audio/part1.mp3"]!)
        }
        _ = try extractor.extract(flat, into: scratch.url("flat"))
        #expect(extractor.packagedManifest(in: scratch.url("flat")) == scratch.url("flat/manifest.json"))

        let nested = try scratch.archive("nested.audiobook", .zip) { writer in
            try writer.addFile("Book Title/manifest.json", Self.book["manifest.json"]!)
            try writer.addFile("Book Title/part1.mp3", Data("a".utf8))
            try writer.addFile("__MACOSX/._part1.mp3", Data("b".utf8))
        }
        _ = try extractor.extract(nested, into: scratch.url("nested"))
        #expect(extractor.packagedManifest(in: scratch.url("nested")) == scratch.url("nested/Book Title/manifest.json"))

        let parts = try scratch.archive("parts.zip", .zip) { writer in
            try writer.addFile("one/manifest.json", Data("{}".utf8))
            try writer.addFile("two/part.mp3", Data("a".utf8))
        }
        _ = try extractor.extract(parts, into: scratch.url("parts"))
        #expect(extractor.packagedManifest(in: scratch.url("parts")) == nil)
        #expect(extractor.packagedManifest(in: scratch.url("missing")) == nil)
    }

    @Test(
        "the real bestnewhorror package extracts and its manifest has a reading order",
        .enabled(if: FixturePaths.sharedAvailable, "../shared/fixtures-real is absent; real package test skipped"))
    func realPackage() throws {
        let scratch = try ArchiveScratch()
        let package = FixturePaths.shared("manifests/bestnewhorror-package.zip")
        let extractor = ArchiveExtractor()
        let report = try extractor.extract(package, into: scratch.url("bestnewhorror"))
        #expect(report.files == [.init(path: "manifest.json", size: 4557)])
        #expect(report.totalBytes == 4557)
        let manifest = try #require(extractor.packagedManifest(in: scratch.url("bestnewhorror")))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        let readingOrder = try #require(json["readingOrder"] as? [[String: Any]])
        #expect(!readingOrder.isEmpty)
        #expect(readingOrder.allSatisfy { $0["href"] is String })
    }

    @Test("an existing destination is replaced only when the new extraction succeeds")
    func replacesOnlyOnSuccess() throws {
        let scratch = try ArchiveScratch()
        let destination = scratch.url("book")
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: destination.appendingPathComponent("old.mp3"))

        let good = try scratch.archive("good.zip", .zip) { try $0.addFile("new.mp3", noise(100_000, seed: 9)) }
        var corrupt = try Data(contentsOf: good)
        corrupt = corrupt.prefix(corrupt.count / 2)
        let bad = scratch.url("bad.zip")
        try corrupt.write(to: bad)

        #expect(throws: ArchiveError.self) { try ArchiveExtractor().extract(bad, into: destination) }
        #expect(try scratch.tree(destination) == ["old.mp3": Data("old".utf8)])
        #expect(try scratch.listing() == ["bad.zip", "book", "good.zip"])

        _ = try ArchiveExtractor().extract(good, into: destination)
        #expect(try scratch.tree(destination) == ["new.mp3": noise(100_000, seed: 9)])
        #expect(try scratch.listing() == ["bad.zip", "book", "good.zip"])
    }

    @Test("a missing destination parent is created")
    func createsParent() throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("a.tar", .tar) { try $0.addFile("x", Data("1".utf8)) }
        _ = try ArchiveExtractor().extract(archive, into: scratch.url("books/edition-1/files"))
        #expect(try scratch.tree(scratch.url("books/edition-1/files")) == ["x": Data("1".utf8)])
    }
}
