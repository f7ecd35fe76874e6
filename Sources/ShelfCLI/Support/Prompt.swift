import Foundation
import ShelfCore
#if canImport(Glibc)
import Glibc
#endif

/// Asks the patron on the controlling terminal, never through arguments or the environment.
enum Prompt {
    /// Whether a terminal is there to ask on.
    static var hasTerminal: Bool {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return true
    }

    /// Reads one line from the terminal; `secret` turns echo off while the patron types.
    static func ask(_ label: String, secret: Bool) -> String? {
        let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var original = termios()
        let hasAttributes = tcgetattr(descriptor, &original) == 0
        if secret && hasAttributes {
            var quiet = original
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            _ = tcsetattr(descriptor, TCSAFLUSH, &quiet)
        }
        defer {
            if secret && hasAttributes { _ = tcsetattr(descriptor, TCSAFLUSH, &original) }
        }
        let question = "\(label): "
        _ = question.withCString { write(descriptor, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// A yes/no question on the terminal; nil when there is none.
    static func confirm(_ question: String) -> Bool? {
        guard hasTerminal, let answer = ask("\(question) [y/N]", secret: false) else { return nil }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    /// The first line of standard input (for `--password-stdin`), without its newline.
    static func readStandardInputLine() -> String? {
        guard let line = readLine(strippingNewline: true) else { return nil }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }
}
