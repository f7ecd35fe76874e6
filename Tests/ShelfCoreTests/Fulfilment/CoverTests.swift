import Foundation
import Testing
@testable import ShelfCore

/// The cover kept beside a title's files: PNG or JPEG by their first bytes, one at a time, none over 20 MB.
@Suite struct CoverTests {
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-cover-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func imagesAreKeptByTheirBytesOneAtATime() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(Cover.file(in: directory) == nil)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        #expect(try Cover.keep(png, in: directory).lastPathComponent == "cover.png")
        #expect(Cover.file(in: directory)?.lastPathComponent == "cover.png")
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10])
        #expect(try Cover.keep(jpeg, in: directory).lastPathComponent == "cover.jpg")
        // The newer replaces the older: one cover, whatever it was before.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("cover.png").path))
        #expect(try Data(contentsOf: try #require(Cover.file(in: directory))) == jpeg)
    }

    @Test func aPageOrAHugeFileIsNotACover() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: Cover.Skipped.self) { try Cover.keep(Data("<html>Sign in</html>".utf8), in: directory) }
        var huge = Data([0x89, 0x50, 0x4E, 0x47])
        huge.append(Data(count: Cover.limit))
        #expect(throws: Cover.Skipped.self) { try Cover.keep(huge, in: directory) }
        #expect(Cover.file(in: directory) == nil)
    }
}
