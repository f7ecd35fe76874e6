import Foundation
import ShelfSpawn
import Testing
@testable import ShelfCore

@Suite(.timeLimit(.minutes(5))) struct SHA256Tests {
    private func digest(_ text: String, split: Int? = nil) throws -> String {
        var hasher = try SHA256()
        let data = Data(text.utf8)
        if let split {
            try hasher.update(data.prefix(split))
            try hasher.update(data.dropFirst(split))
        } else {
            try hasher.update(data)
        }
        return try hasher.finish()
    }

    @Test func knownAnswers() throws {
        // FIPS 180-4 examples.
        #expect(try digest("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(try digest(String(repeating: "a", count: 1000), split: 333) == digest(String(repeating: "a", count: 1000)))
    }

    @Test func theOtherNISTVectors() throws {
        // NIST's SHA-256 examples: the 896-bit message and one million "a".
        #expect(try digest(
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")
            == "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        #expect(try digest(String(repeating: "a", count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func streamedInPiecesOfAnySizeGivesTheSameDigest() throws {
        let message = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
        // Pieces that end inside, on and across 64-byte blocks.
        var hasher = try SHA256()
        var offset = 0
        for size in [1, 63, 64, 65, 127, 1000, 4096].cycled() {
            guard offset < message.count else { break }
            let end = min(message.count, offset + size)
            try hasher.update(message[offset..<end])
            offset = end
        }
        #expect(try hasher.finish() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func aCopyGoesOnOnItsOwn() throws {
        var first = try SHA256()
        try first.update(Data("ab".utf8))
        var second = first
        try second.update(Data("c".utf8))
        // The digest so far leaves the hasher able to take more.
        #expect(try first.finish() == digest("ab"))
        try first.update(Data("d".utf8))
        #expect(try first.finish() == digest("abd"))
        #expect(try second.finish() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func matchesTheSystemTool() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-sha-\(UUID())")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
        let process = ChildProcess()
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

private extension Array {
    /// The elements over and over, without end.
    func cycled() -> UnfoldSequence<Element, Int> {
        sequence(state: 0) { index in
            defer { index = (index + 1) % count }
            return self[index]
        }
    }
}
