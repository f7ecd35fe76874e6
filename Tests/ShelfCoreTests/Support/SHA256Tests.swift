import Foundation
import Testing
@testable import ShelfCore

@Suite struct SHA256Tests {
    private func digest(_ text: String, split: Int? = nil) -> String {
        var hasher = SHA256()
        let data = Data(text.utf8)
        if let split {
            hasher.update(data.prefix(split))
            hasher.update(data.dropFirst(split))
        } else {
            hasher.update(data)
        }
        return hasher.finish()
    }

    @Test func knownAnswers() {
        // FIPS 180-4 examples.
        #expect(digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(digest(String(repeating: "a", count: 1000), split: 333) == digest(String(repeating: "a", count: 1000)))
    }

    @Test func matchesTheSystemTool() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-sha-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(try SHA256.hex(of: file) == String(output.prefix(64)))
    }
}
