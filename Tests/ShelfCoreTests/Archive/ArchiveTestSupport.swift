import Foundation

@testable import ShelfCore

/// A temporary folder holding one test's archives and extraction destinations, removed when the test ends.
final class ArchiveScratch: @unchecked Sendable {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("shelf-archive-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Writes an archive named `name` in `format`, built by `build`.
    func archive(_ name: String, _ format: ArchiveWriter.Format, _ build: (ArchiveWriter) throws -> Void) throws -> URL {
        let url = url(name)
        let writer = try ArchiveWriter(url, format: format)
        try build(writer)
        try writer.close()
        return url
    }

    /// Names in the scratch folder, hidden ones included: staging folders must never be left behind.
    func listing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// Every regular file below `root` as relative path → contents.
    func tree(_ root: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let base = root.resolvingSymlinksInPath().path
        guard let walker = FileManager.default.enumerator(atPath: base) else { return result }
        while let relative = walker.nextObject() as? String {
            let full = base + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[relative] = try Data(contentsOf: URL(fileURLWithPath: full))
            }
        }
        return result
    }

    /// The permission bits of the file at `url`.
    func permissions(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

/// Deterministic bytes that do not compress, like audio.
func noise(_ count: Int, seed: UInt64) -> Data {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    var data = Data(capacity: count)
    while data.count < count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        withUnsafeBytes(of: state.littleEndian) { data.append(contentsOf: $0.prefix(count - data.count)) }
    }
    return data
}
