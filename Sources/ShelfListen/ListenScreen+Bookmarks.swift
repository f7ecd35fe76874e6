import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

extension ListenScreen {
    /// The bookmarks screen: every device's bookmarks in book order, the selected one marked.
    static func bookmarks(
        _ bookmarks: [Bookmark], book: Audiobook, timeline: Timeline, selection: Int, message: String?, rows: Int
    ) -> [String] {
        var lines = ["", "  " + Output.bold("Bookmarks") + " — ↑/↓ choose · enter jump · d delete · B or esc back",
                     "  " + (message ?? "")]
        guard !bookmarks.isEmpty else {
            return lines + ["  No bookmarks yet: press b while listening to add one."]
        }
        let room = max(3, rows - lines.count - 1)
        let first = min(max(0, selection - room / 2), max(0, bookmarks.count - room))
        for index in first..<min(bookmarks.count, first + room) {
            let bookmark = bookmarks[index]
            let position = PlaybackPosition(part: bookmark.part, seconds: bookmark.seconds)
            let known = book.parts.indices.contains(bookmark.part)
            let time = known ? Clock.format(timeline.bookTime(position)) : "part \(bookmark.part + 1)"
            let chapter = known ? book.chapters[timeline.chapter(at: position)].title : ""
            var line = (index == selection ? "›" : " ") + " \(String(format: "%3d", index + 1))  \(time)  \(chapter)"
            if let name = bookmark.name { line += " · \(name)" }
            if !bookmark.thisDevice { line += "  (\(bookmark.deviceName ?? "another device"))" }
            lines.append(index == selection ? Output.bold(line) : line)
        }
        return lines
    }
}
