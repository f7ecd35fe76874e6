import Foundation
import ShelfSpawn
import Testing

/// The committed man pages, as `man` shows them: the key symbols of `shelf listen`'s help survive generate-manual
/// (which drops every character that is not ASCII; `Scripts/man` writes them as groff escapes).
@Suite(.timeLimit(.minutes(5))) struct ManPageKeysTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `man -l PAGE` in a UTF-8 locale, as plain text.
    private func render(_ page: String) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/man")
        process.arguments = ["-l", Self.root.appendingPathComponent("man/\(page)").path]
        process.environment = ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "MANWIDTH": "120", "MAN_KEEP_FORMATTING": "",
                               "PATH": "/usr/bin:/bin", "MANPAGER": "cat", "PAGER": "cat"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func theListenPageKeepsItsKeySymbols() throws {
        let text = try render("shelf.listen.1")
        for line in ["space  play or pause          ← →  back or forward 30 s (--skip, kept)",
                     "↑ ↓    back or forward 5 min  , .  back or forward 5 s",
                     "[ ]    speed −/+ 0.25×"] {
            #expect(text.contains(line), "\(line) in\n\(text)")
        }
    }

    @Test func noPageHoldsAStandInForACharacter() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("man").path)
        #expect(!pages.isEmpty)
        for page in pages {
            let source = try String(contentsOf: Self.root.appendingPathComponent("man/\(page)"), encoding: .utf8)
            #expect(!source.contains("ZzU"), "\(page)")
        }
    }
}
