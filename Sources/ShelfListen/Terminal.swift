import Foundation
import ShelfCLI
import ShelfCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A key the player understands, decoded from the terminal's bytes.
enum Key: Equatable {
    case character(Character)
    case left, right, up, down
    case enter, escape
    /// Ctrl-C, which in raw mode arrives as a byte, not a signal.
    case interrupt
    /// Backspace (DEL or Ctrl-H).
    case backspace
    /// Ctrl-Z, which in raw mode arrives as a byte, not a signal.
    case suspend
}

/// The controlling terminal in raw mode for the full-screen player: keys arrive without Enter and without echo,
/// drawing happens on the alternate screen, and everything is put back on `restore()`.
final class Terminal {
    private var saved = termios()
    private var active = false
    private var pending: [UInt8] = []
    /// Set when standard input ended or failed: the terminal went away (a closed window, a dropped ssh).
    private(set) var isGone = false

    /// Whether both standard input and output are a terminal.
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Raw mode without echo or signal keys (Ctrl-C comes as `.interrupt`), the alternate screen, no cursor.
    func enter() {
        guard !active, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        active = true
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Puts the terminal back as it was; safe to call twice, and after the terminal has gone.
    func restore() {
        guard active else { return }
        active = false
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    /// Waits up to `timeout` seconds for a key.
    func readKey(timeout: Double) -> Key? {
        if let key = decode() { return key }
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(timeout * 1000))
        guard ready > 0 else { return nil }
        if descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && descriptor.revents & Int16(POLLIN) == 0 {
            isGone = true
            return nil
        }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(STDIN_FILENO, &buffer, buffer.count)
        if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) {
            isGone = true
            return nil
        }
        if count > 0 { pending += buffer.prefix(count) }
        return decode()
    }

    /// Turns the bytes read so far into one key: arrows arrive as `ESC [ C` (or `ESC O C`).
    private func decode() -> Key? {
        guard let first = pending.first else { return nil }
        if first == 0x1B {
            if pending.count >= 3, pending[1] == 0x5B || pending[1] == 0x4F {
                let final = pending[2]
                pending.removeFirst(3)
                switch final {
                case 0x41: return .up
                case 0x42: return .down
                case 0x43: return .right
                case 0x44: return .left
                default: return nil
                }
            }
            if pending.count == 1 || (pending[1] != 0x5B && pending[1] != 0x4F) {
                pending.removeFirst()
                return .escape
            }
            // A sequence cut between reads: wait for the rest.
            return nil
        }
        // A character typed in a prompt may take several bytes (UTF-8): wait for all of them.
        if first >= 0xC0 {
            let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : 2
            guard pending.count >= length else { return nil }
            let bytes = pending.prefix(length)
            pending.removeFirst(length)
            guard let text = String(validating: bytes, as: UTF8.self), let character = text.first else { return nil }
            return .character(character)
        }
        pending.removeFirst()
        switch first {
        case 0x03: return .interrupt
        case 0x1A: return .suspend
        case 0x7F, 0x08: return .backspace
        case 0x0D, 0x0A: return .enter
        default:
            guard first < 0x80 else { return nil }
            return .character(Character(UnicodeScalar(first)))
        }
    }

    /// Ctrl-Z: gives the terminal back and stops the process group, as the terminal itself does for Ctrl-Z outside
    /// raw mode, so the shell's job control sees the job stopped; when the shell continues it (`fg`), takes the
    /// terminal and the alternate screen again. The corresponding C function is `kill(0, SIGTSTP)`.
    func suspend() {
        let wasActive = active
        restore()
        var stop = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        sigaddset(&stop, SIGCONT)
        pthread_sigmask(SIG_UNBLOCK, &stop, nil)
        signal(SIGTSTP, SIG_DFL)
        // Stops every thread here (and the rest of the job); returns once SIGCONT comes.
        kill(0, SIGTSTP)
        pending.removeAll()
        if wasActive { enter() }
    }

    /// Rows and columns of the window.
    var size: (rows: Int, columns: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0 else { return (24, 80) }
        return (Int(window.ws_row), Int(window.ws_col))
    }

    /// Redraws the screen: each line cut to the width, the rest of the screen cleared.
    func draw(_ lines: [String]) {
        let (rows, columns) = size
        var frame = "\u{1B}[H"
        let shown = lines.prefix(rows)
        for (index, line) in shown.enumerated() {
            // No line break after the last: on the bottom row it would scroll the whole screen up by one, and the
            // first line (the title) would be lost whenever the screen fills the window.
            frame += Self.fit(line, to: columns) + "\u{1B}[K" + (index < shown.count - 1 ? "\r\n" : "")
        }
        frame += "\u{1B}[J"
        write(frame)
    }

    /// Cuts a line (which may hold colour escapes) to `columns` columns of the terminal.
    static func fit(_ line: String, to columns: Int) -> String { TextWidth.fit(line, to: columns) }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                isGone = true
                return
            }
            offset += written
        }
    }
}
