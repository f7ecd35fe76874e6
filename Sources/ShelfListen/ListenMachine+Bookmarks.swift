import Foundation
import ShelfCore
import ShelfPlayback

/// What the machine keeps for the bookmarks screen and for positions pulled while playing.
struct ListenSync: Equatable {
    /// The title's bookmarks, in book order, as last read from the store.
    var bookmarks: [Bookmark] = []
    var selection = 0
    /// The list was just opened: its first reading selects the bookmark just behind the player.
    var choosing = false
    /// Another device ahead of this one, offered with `j`.
    var offer: ListeningPosition?
    /// When the library was last asked for other devices' positions.
    var lastPull = Date.distantPast
    /// Only positions saved after this are offered: the session's start, then the last offer taken or seen.
    var since = Date.distantPast
}

extension ListenMachine {
    /// How often the library is asked for other devices' positions while playing, in seconds.
    static let pullInterval: Double = 60
    /// How far ahead another device must be for the player to offer to jump there, in seconds of the book.
    static let aheadThreshold: Double = 30

    // MARK: - Positions pulled while playing

    /// Asks the library for other devices' positions when a minute of playing has passed since the last time.
    mutating func pullIfDue() -> [Effect] {
        guard now.timeIntervalSince(sync.lastPull) >= Self.pullInterval else { return [] }
        return pullRemote()
    }

    /// Asks the library for other devices' positions now (in the background: the shell never waits).
    mutating func pullRemote() -> [Effect] {
        sync.lastPull = now
        return [.pullRemote]
    }

    /// Another device's position arrived: offered when it is ahead by more than `aheadThreshold` and was saved after
    /// this session started (or after the last offer); the player never jumps by itself.
    mutating func remotePosition(_ position: ListeningPosition) -> [Effect] {
        guard position.at > sync.since, book.parts.indices.contains(position.part) else { return [] }
        let theirs = timeline.bookTime(PlaybackPosition(part: position.part, seconds: position.seconds))
        let ours = timeline.bookTime(player.position)
        guard theirs - ours > Self.aheadThreshold, theirs < timeline.total else { return [] }
        if let offer = sync.offer, offer.device == position.device, offer.at == position.at { return [] }
        sync.offer = position
        let device = position.deviceName.map { " (\($0))" } ?? ""
        let text = "Another device\(device) is at \(Clock.format(theirs)) — press j to jump there"
        guard screen else { return [.line(text)] }
        // It stays until taken or replaced by another message.
        show(text, seconds: 365 * 86_400)
        return [.redraw]
    }

    /// An offer this device has caught up with is withdrawn, with its message: `j` would now jump back.
    mutating func withdrawPassedOffer() {
        guard let offer = sync.offer else { return }
        let theirs = timeline.bookTime(PlaybackPosition(part: offer.part, seconds: offer.seconds))
        guard timeline.bookTime(player.position) >= theirs else { return }
        sync.offer = nil
        sync.since = max(sync.since, offer.at)
        if message?.text.hasPrefix("Another device") == true { message = nil }
    }

    /// `j`: goes to the offered position and saves it there.
    mutating func jumpToOffer() -> [Effect] {
        guard let offer = sync.offer else {
            show("No other device is ahead of this one.")
            return []
        }
        sync.offer = nil
        sync.since = max(sync.since, offer.at)
        let target = PlaybackPosition(part: offer.part, seconds: offer.seconds)
        show("Jumped to \(Clock.format(timeline.bookTime(target))), where \(offer.deviceName ?? "the other device") was.")
        return seekAndSave(target) + push()
    }

    // MARK: - The bookmarks screen

    /// `B`: the bookmarks screen, once the shell has read them from the store.
    mutating func openBookmarks() -> [Effect] {
        mode = .bookmarks
        sync.bookmarks = []
        sync.selection = 0
        sync.choosing = true
        return [.readBookmarks]
    }

    mutating func bookmarksRead(_ bookmarks: [Bookmark]) -> [Effect] {
        let opening = sync.choosing
        sync.choosing = false
        sync.bookmarks = bookmarks
        if opening, let nearest = bookmarks.lastIndex(where: {
            timeline.bookTime(PlaybackPosition(part: $0.part, seconds: $0.seconds)) <= timeline.bookTime(player.position)
        }) {
            sync.selection = nearest
        }
        sync.selection = min(max(0, sync.selection), max(0, bookmarks.count - 1))
        return screen ? [.redraw] : []
    }

    mutating func handleBookmarks(_ key: Key) -> [Effect] {
        switch key {
        case .up, .character("k"): sync.selection = max(0, sync.selection - 1)
        case .down, .character("j"): sync.selection = min(max(0, sync.bookmarks.count - 1), sync.selection + 1)
        case .enter:
            guard sync.bookmarks.indices.contains(sync.selection) else { return [] }
            let bookmark = sync.bookmarks[sync.selection]
            mode = .player
            let target = PlaybackPosition(part: bookmark.part, seconds: bookmark.seconds)
            guard book.parts.indices.contains(target.part) else { return [] }
            show("Jumped to the bookmark at \(Clock.format(timeline.bookTime(target)))"
                 + (bookmark.name.map { " (\($0))" } ?? "") + ".")
            return seekAndSave(target)
        case .character("d"):
            guard sync.bookmarks.indices.contains(sync.selection) else { return [] }
            let bookmark = sync.bookmarks.remove(at: sync.selection)
            sync.selection = min(sync.selection, max(0, sync.bookmarks.count - 1))
            show("Deleted the bookmark at \(Clock.format(timeline.bookTime(PlaybackPosition(part: bookmark.part, seconds: bookmark.seconds)))).")
            return [.deleteBookmark(bookmark.id), .readBookmarks] + push()
        case .escape, .character("B"), .character("q"): mode = .player
        default: break
        }
        return []
    }
}
