import Foundation
import Testing

@testable import ShelfCore

@Suite("Archive extractor: hostile and corrupt archives", .timeLimit(.minutes(5)))
struct ArchiveHostileTests {
    /// Extracts `archive` expecting `expected`, then checks nothing was left: no destination, no staging folder.
    private func refuses(
        _ scratch: ArchiveScratch, _ archive: URL, with expected: ArchiveError, limits: ArchiveLimits = .init(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try scratch.listing()
        #expect(throws: expected, sourceLocation: sourceLocation) {
            try ArchiveExtractor(limits: limits).extract(archive, into: scratch.url("out"))
        }
        #expect(try scratch.listing() == before, "destination or staging left behind", sourceLocation: sourceLocation)
    }

    @Test("../ traversal is refused, naming the entry", arguments: [ArchiveWriter.Format.zip, .tarGzip])
    func traversal(format: ArchiveWriter.Format) throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("evil", format) { writer in
            try writer.addFile("ok.mp3", Data("fine".utf8))
            try writer.addFile("../../etc/passwd", Data("root::0:0::/:/bin/sh\n".utf8))
        }
        try refuses(scratch, archive, with: .leavesDestination(entry: "../../etc/passwd"))
        #expect(
            ArchiveError.leavesDestination(entry: "../../etc/passwd").description
                == "archive entry '../../etc/passwd' leaves the destination; refusing the archive")
        #expect(ArchiveError.leavesDestination(entry: "x").exitCode == .badData)
    }

    @Test("a .. hidden in the middle of a path is refused")
    func traversalInside() throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("evil.tar", .tar) { try $0.addFile("audio/../../x", Data("x".utf8)) }
        try refuses(scratch, archive, with: .leavesDestination(entry: "audio/../../x"))
    }

    @Test("an absolute path is refused")
    func absolutePath() throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("evil.tar", .tar) { try $0.addFile("/tmp/shelf-owned", Data("x".utf8)) }
        try refuses(scratch, archive, with: .absolutePath(entry: "/tmp/shelf-owned"))
        #expect(!FileManager.default.fileExists(atPath: "/tmp/shelf-owned"))
    }

    @Test("a symlink pointing outside is refused, in tar and zip", arguments: [ArchiveWriter.Format.tar, .zip])
    func symlink(format: ArchiveWriter.Format) throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("evil", format) { writer in
            try writer.addSymlink("escape", to: "/etc")
            try writer.addFile("escape/passwd", Data("x".utf8))
        }
        try refuses(scratch, archive, with: .link(entry: "escape", kind: "symbolic", target: "/etc"))
    }

    @Test("a symlink pointing inside is refused too: shelf extracts no links")
    func symlinkInside() throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("evil.tar", .tar) { writer in
            try writer.addFile("a.mp3", Data("x".utf8))
            try writer.addSymlink("b.mp3", to: "a.mp3")
        }
        try refuses(scratch, archive, with: .link(entry: "b.mp3", kind: "symbolic", target: "a.mp3"))
    }

    @Test("a hardlink to a file outside is refused")
    func hardlink() throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("evil.tar", .tar) { try $0.addHardlink("passwd", to: "/etc/passwd") }
        try refuses(scratch, archive, with: .link(entry: "passwd", kind: "hard", target: "/etc/passwd"))
    }

    @Test("FIFO and device entries are refused")
    func specialFiles() throws {
        let scratch = try ArchiveScratch()
        let fifo = try scratch.archive("fifo.tar", .tar) { try $0.addFIFO("pipe") }
        try refuses(scratch, fifo, with: .specialFile(entry: "pipe", kind: "FIFO"))
        let device = try scratch.archive("device.tar", .tar) { try $0.addCharacterDevice("null") }
        try refuses(scratch, device, with: .specialFile(entry: "null", kind: "character device"))
    }

    @Test("a zip bomb stops early with the ratio error, without writing it out")
    func zipBomb() throws {
        let scratch = try ArchiveScratch()
        let bomb = try scratch.archive("bomb.zip", .zip) { try $0.addZeros("zeros.mp3", count: 200 << 20) }
        let archiveSize = try #require(
            FileManager.default.attributesOfItem(atPath: bomb.path)[.size] as? NSNumber).int64Value
        #expect(archiveSize < 1 << 20, "200 MB of zeros should compress to well under 1 MB")
        let started = ContinuousClock.now
        try refuses(scratch, bomb, with: .entryRatio(entry: "zeros.mp3", limit: 200))
        #expect(ContinuousClock.now - started < .seconds(2))
    }

    @Test("a tar.gz bomb is stopped the same way")
    func gzipBomb() throws {
        let scratch = try ArchiveScratch()
        let bomb = try scratch.archive("bomb.tar.gz", .tarGzip) { try $0.addZeros("zeros.mp3", count: 64 << 20) }
        try refuses(scratch, bomb, with: .entryRatio(entry: "zeros.mp3", limit: 200))
    }

    @Test("many small entries that each pass still trip the overall ratio")
    func overallRatio() throws {
        let scratch = try ArchiveScratch()
        let bomb = try scratch.archive("spread.zip", .zip) { writer in
            for index in 0..<40 { try writer.addZeros("part\(index).mp3", count: 512 << 10) }
        }
        try refuses(scratch, bomb, with: .overallRatio(limit: 200))
    }

    @Test("too many entries are refused")
    func tooManyEntries() throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("many.zip", .zip) { writer in
            for index in 0..<11 { try writer.addFile("part\(index).mp3", Data("x".utf8)) }
        }
        try refuses(scratch, archive, with: .tooManyEntries(limit: 10), limits: .init(maxEntries: 10))
        #expect(ArchiveError.tooManyEntries(limit: 10_000).description
            == "the archive has more than 10000 entries; refusing it")
    }

    @Test("the total size cap holds whether or not the headers tell the truth")
    func totalSize() throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("big.tar", .tar) { writer in
            try writer.addFile("a.mp3", noise(600_000, seed: 1))
            try writer.addFile("b.mp3", noise(600_000, seed: 2))
        }
        let limits = ArchiveLimits(maxTotalBytes: 1 << 20)
        try refuses(scratch, archive, with: .tooLarge(entry: "b.mp3", limit: 1 << 20), limits: limits)
        #expect(ArchiveError.tooLarge(entry: "b.mp3", limit: 4 << 30).description
            == "archive entry 'b.mp3' takes the archive past 4 GiB uncompressed; refusing it")
    }

    @Test("a truncated archive and a file that is no archive are corrupt, leaving nothing behind")
    func corrupt() throws {
        let scratch = try ArchiveScratch()
        for format in [ArchiveWriter.Format.zip, .tarGzip] {
            let whole = try scratch.archive("whole", format) { writer in
                try writer.addFile("a.mp3", noise(200_000, seed: 1))
                try writer.addFile("b.mp3", noise(200_000, seed: 2))
            }
            let truncated = scratch.url("truncated")
            try Data(contentsOf: whole).prefix(150_000).write(to: truncated)
            try FileManager.default.removeItem(at: whole)
            let before = try scratch.listing()
            do {
                _ = try ArchiveExtractor().extract(truncated, into: scratch.url("out"))
                Issue.record("a truncated \(format) archive extracted")
            } catch let error as ArchiveError {
                guard case .corrupt(let name, _) = error else { Issue.record("\(error)"); continue }
                #expect(name == "truncated")
                #expect(error.exitCode == .badData)
            }
            #expect(try scratch.listing() == before)
            try FileManager.default.removeItem(at: truncated)
        }
        let text = scratch.url("notes.zip")
        try Data("this is not an archive\n".utf8).write(to: text)
        #expect {
            try ArchiveExtractor().extract(text, into: scratch.url("out"))
        } throws: { error in
            guard case .corrupt("notes.zip", let reason)? = error as? ArchiveError else { return false }
            return !reason.isEmpty
        }
        #expect(try scratch.listing() == ["notes.zip"])
    }

    @Test("a missing archive is a local failure")
    func missing() throws {
        let scratch = try ArchiveScratch()
        let error = #expect(throws: ArchiveError.self) {
            try ArchiveExtractor().extract(scratch.url("gone.zip"), into: scratch.url("out"))
        }
        #expect(error?.exitCode == .storeFailure)
        #expect(try scratch.listing() == [])
    }

    @Test("two entries with one name, or a file in the way of a folder, clash")
    func clashes() throws {
        let scratch = try ArchiveScratch()
        let twice = try scratch.archive("twice.zip", .zip) { writer in
            try writer.addFile("part.mp3", Data("a".utf8))
            try writer.addFile("./part.mp3", Data("b".utf8))
        }
        try refuses(scratch, twice, with: .clash(entry: "./part.mp3"))
        let through = try scratch.archive("through.tar", .tar) { writer in
            try writer.addFile("audio", Data("a".utf8))
            try writer.addFile("audio/part.mp3", Data("b".utf8))
        }
        try refuses(scratch, through, with: .clash(entry: "audio/part.mp3"))
    }

    @Test("entry names are sanitised or refused by rule")
    func names() throws {
        #expect(try ArchiveExtractor.sanitisedPath("./a//b/./c.mp3") == "a/b/c.mp3")
        #expect(try ArchiveExtractor.sanitisedPath("a/b/") == "a/b")
        #expect(try ArchiveExtractor.sanitisedPath("...mp3") == "...mp3")
        #expect(try ArchiveExtractor.sanitisedPath("./") == "")
        #expect(throws: ArchiveError.unusableName(entry: "", reason: "the name is empty")) {
            try ArchiveExtractor.sanitisedPath("")
        }
        #expect(throws: ArchiveError.unusableName(entry: "a\u{0}b", reason: "the name contains a NUL byte")) {
            try ArchiveExtractor.sanitisedPath("a\u{0}b")
        }
        let long = String(repeating: "x", count: 256)
        #expect(throws: ArchiveError.unusableName(entry: "a/\(long)", reason: "a component is longer than 255 bytes")) {
            try ArchiveExtractor.sanitisedPath("a/\(long)")
        }
        #expect(throws: ArchiveError.leavesDestination(entry: "..")) { try ArchiveExtractor.sanitisedPath("..") }
        #expect(throws: ArchiveError.absolutePath(entry: "//x")) { try ArchiveExtractor.sanitisedPath("//x") }

        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("long.tar", .tar) { try $0.addFile(long + ".mp3", Data("x".utf8)) }
        try refuses(
            scratch, archive,
            with: .unusableName(entry: long + ".mp3", reason: "a component is longer than 255 bytes"))
    }
}

@Suite("Archive extractor: libarchive's own defences", .timeLimit(.minutes(5)))
struct ArchiveLibarchiveDefenceTests {
    @Test("with our checks bypassed, libarchive's secure flags still refuse .. and absolute names", arguments: [
        "../escaped.mp3", "/tmp/shelf-escaped.mp3",
    ])
    func secureFlags(name: String) throws {
        let scratch = try ArchiveScratch()
        let archive = try scratch.archive("a.tar", .tar) { try $0.addFile("a.mp3", Data("x".utf8)) }
        let staging = scratch.url("staging")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        let processDirectory = FileManager.default.currentDirectoryPath
        let error = #expect(throws: ArchiveLibraryError.self) {
            try withPrivateWorkingDirectory(staging) {
                let session = try ArchiveExtractionSession(archivePath: archive.path)
                _ = try session.nextEntry()
                _ = try session.writeCurrentEntry(as: name, isDirectory: false) { _, _ in }
            }
        }
        #expect(error?.isLibarchiveRefusal == true, "\(String(describing: error))")
        #expect(FileManager.default.currentDirectoryPath == processDirectory)
        #expect(try scratch.listing() == ["a.tar", "staging"])
        #expect(!FileManager.default.fileExists(atPath: "/tmp/shelf-escaped.mp3"))
    }
}
