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
    /// Another device's newer place, offered with `j` (go there) and `x` (stay here) until answered.
    var offer: ListeningPosition?
    /// When the library was last asked for other devices' positions.
    var lastPull = Date.distantPast
}

extension ListenMachine {
    /// How often the library is asked for other devices' positions while playing, in seconds.
    static let pullInterval: Double = 60
    /// How far from this device's place another device's must be for the player to offer it, in seconds of the book.
    static let offerThreshold: Double = Store.samePlace

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

    /// Another device's newer place, not answered yet, arrived (from the library while playing, or from the store at
    /// the start): offered unless this device is within `offerThreshold` of it, which answers it by itself. The
    /// player never jumps by itself, and this device's position is not pushed over it until the patron chooses.
    mutating func remotePosition(_ position: ListeningPosition) -> [Effect] {
        guard book.parts.indices.contains(position.part) else { return [] }
        if let offer = sync.offer, offer.device == position.device, offer.at == position.at { return [] }
        let theirs = timeline.bookTime(PlaybackPosition(part: position.part, seconds: position.seconds))
        let ours = timeline.bookTime(player.position)
        guard abs(theirs - ours) > Self.offerThreshold, theirs < timeline.total else {
            return [.settleOffer(position.at)]
        }
        sync.offer = position
        let device = position.deviceName.map { " (\($0))" } ?? ""
        let age = Clock.relative(min(position.at, now), now: now)
        guard screen else {
            let id = book.summary.shortID
            return [.line("Another device\(device) was at \(Clock.format(theirs)), \(age) — `shelf position \(id) "
                          + "--take-other` goes there, `--keep-here` stays here")]
        }
        // It stays until answered or replaced by another message.
        show("Another device\(device) was at \(Clock.format(theirs)), \(age) — press j to go there, x to stay here",
             seconds: 365 * 86_400)
        return [.redraw]
    }

    /// An offer ahead of this device that it has played up to is answered: the patron listened on past it here.
    mutating func withdrawPassedOffer() -> [Effect] {
        guard let offer = sync.offer else { return [] }
        let theirs = timeline.bookTime(PlaybackPosition(part: offer.part, seconds: offer.seconds))
        let ours = timeline.bookTime(player.position)
        guard ours >= theirs, ours - theirs < Self.offerThreshold else { return [] }
        return settleOffer()
    }

    /// Closes the open offer, if any, with its message: the patron answered it.
    mutating func settleOffer() -> [Effect] {
        guard let offer = sync.offer else { return [] }
        sync.offer = nil
        if message?.text.hasPrefix("Another device") == true { message = nil }
        return [.settleOffer(offer.at)]
    }

    /// `j`: goes to the offered place and saves it there.
    mutating func jumpToOffer() -> [Effect] {
        guard let offer = sync.offer else {
            show("No other device's place is waiting for an answer.")
            return []
        }
        let target = PlaybackPosition(part: offer.part, seconds: offer.seconds)
        let effects = settleOffer()
        show("Went to \(Clock.format(timeline.bookTime(target))), where \(offer.deviceName ?? "the other device") was.")
        return effects + seekAndSave(target) + push()
    }

    /// `x`: stays here; this computer's place goes to the library over the other device's.
    mutating func stayHere() -> [Effect] {
        guard sync.offer != nil else {
            show("No other device's place is waiting for an answer.")
            return []
        }
        let effects = settleOffer()
        show("Staying here: the library gets this computer's place.")
        return effects + save(force: true) + push()
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
