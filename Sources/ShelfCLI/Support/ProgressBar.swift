import Foundation
import ShelfCore
import Synchronization

/// One line redrawn in place on a terminal: the book's bar, then each part under way.
final class ProgressBar: Sendable {
    private let enabled: Bool
    /// When the line was last drawn, and whether it is on the screen.
    private let line = Mutex((lastDraw: Date.distantPast, drawn: false))

    init(enabled: Bool) { self.enabled = enabled }

    func show(_ progress: DownloadProgress) {
        guard enabled, line.withLock({ line in
            guard Date().timeIntervalSince(line.lastDraw) > 0.1 else { return false }
            line = (Date(), true)
            return true
        }) else { return }
        let activeShare = progress.active.values.reduce(0.0) { sum, part in
            guard let total = part.total, total > 0 else { return sum }
            return sum + min(1, Double(part.received) / Double(total))
        }
        let fraction = progress.parts == 0 ? 0 : min(1, (Double(progress.partsDone) + activeShare) / Double(progress.parts))
        let width = 24
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let parts = progress.active.keys.sorted().prefix(4).map { index -> String in
            let part = progress.active[index]!
            guard let total = part.total, total > 0 else { return "[\(index + 1): \(part.received / 1024) KB]" }
            return "[\(index + 1): \(Int(Double(part.received) * 100 / Double(total)))%]"
        }.joined(separator: " ")
        let title = progress.title.count > 28 ? String(progress.title.prefix(27)) + "…" : progress.title
        let text = "\(title)  \(bar) \(Int(fraction * 100))%  \(parts)"
        FileHandle.standardOutput.write(Data("\r\u{1B}[2K\(text)".utf8))
    }

    /// Clears the line so the next message starts clean.
    func finish() {
        guard enabled, line.withLock({ line in
            defer { line.drawn = false }
            return line.drawn
        }) else { return }
        FileHandle.standardOutput.write(Data("\r\u{1B}[2K".utf8))
    }
}
