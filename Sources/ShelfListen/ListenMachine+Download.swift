import Foundation
import ShelfCore
import ShelfPlayback

/// Playing while the title downloads: waiting for the part the player needs until its file is in place, giving up
/// only when that part failed or its file is gone with nothing fetching it.
extension ListenMachine {
    /// What to do this tick about the part the player needs.
    mutating func waitForParts() -> [Effect] {
        if player.state == .buffering, let part = player.bufferingPart { return waitFor(part) }
        // The files went while the part being heard plays on from its open file: the title was archived or returned.
        guard [.playing, .paused].contains(player.state), player.bufferingPart == nil, player.missing == player.position.part,
            download != .running, player.noneOnDisk
        else { return [] }
        return filesRemoved()
    }

    private mutating func waitFor(_ part: Int) -> [Effect] {
        var effects: [Effect] = []
        if announcedBuffering != part {
            announcedBuffering = part
            effects += say("Buffering: \(waitingText(part)).")
            if download == .running { effects.append(.fetchFirst([part, part + 1])) }
        }
        if let reason = failedParts[part], player.missing == part { return effects + giveUp(part, failure: reason) }
        guard download != .running, player.missing == part else {
            // Still downloading, or the file is in place: the player opens it within a quarter of a second.
            return effects
        }
        let failure: String? = if case .ended(let failure)? = download { failure } else { nil }
        if failure == nil && player.noneOnDisk { return effects + filesRemoved() }
        return effects + giveUp(part, failure: failure)
    }

    /// "waiting for part 6 (40%)": the part the player needs, with its own progress.
    func waitingText(_ part: Int) -> String {
        ListenScreen.downloadStatus(book: book, downloading: true, waitingFor: part) ?? "waiting for part \(part + 1)"
    }

    /// The part cannot come: the download failed for it, or its file went missing after it finished.
    private mutating func giveUp(_ part: Int, failure: String?) -> [Effect] {
        let text = unavailableText(part: part, failure: failure)
        let effects = pause() + save(force: true)
        guard screen else {
            return effects + [.errorLine("shelf: \(text)")] + end(.partUnavailable(failure == nil ? .playbackFailed : .offline))
        }
        if message?.text != text { show(text, seconds: 3600) }
        return effects
    }

    /// Every file of the title is gone (`shelf archive --force`, `shelf return --force`): says so once, saves and ends.
    private mutating func filesRemoved() -> [Effect] {
        var ending = end(.filesRemoved)
        // After the terminal is given back, so the line stays on it.
        let at = ending.firstIndex(of: .restoreTerminal).map { $0 + 1 } ?? 0
        ending.insert(.errorLine("shelf: \(filesRemovedText)"), at: at)
        return ending
    }

    var filesRemovedText: String {
        "the files of \(book.summary.title) were removed (archived or returned) — the position is saved"
    }
}
