import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// What the full-screen player draws: pure functions of the session's state, one string per line.
enum ListenScreen {
    /// The screen for the machine's mode: the player, the table of contents or the keys.
    static func lines(of machine: ListenMachine, skip: Double, rows: Int, columns: Int) -> [String] {
        let timeline = machine.timeline
        switch machine.mode {
        case .help: return help(skip: skip)
        case .bookmarks:
            return bookmarks(machine.sync.bookmarks, book: machine.book, timeline: timeline, selection: machine.sync.selection,
                             message: machine.message?.text, rows: rows)
        case .contents:
            return contents(book: machine.book, timeline: timeline, selection: machine.tocSelection,
                            current: timeline.chapter(at: machine.player.position), message: machine.message?.text, rows: rows)
        case .player:
            return player(
                book: machine.book, timeline: timeline, position: machine.player.position, state: machine.player.state,
                speed: machine.speed, sleep: machine.sleep, downloading: machine.download != nil,
                message: machine.message?.text, width: columns,
                waitingFor: machine.player.state == .buffering ? machine.player.bufferingPart : nil,
                volume: machine.volumeLabel)
        }
    }

    static func player(
        book: Audiobook, timeline: Timeline, position: PlaybackPosition, state: Player.State, speed: Double,
        sleep: SleepTimer?, downloading: Bool, message: String?, width: Int, waitingFor: Int? = nil,
        volume: String? = nil
    ) -> [String] {
        let summary = book.summary
        let chapterIndex = timeline.chapter(at: position)
        let chapter = book.chapters[chapterIndex]
        let time = timeline.bookTime(position)
        let chapterStart = timeline.chapterStart(chapterIndex)
        let chapterLength = timeline.chapterEnd(chapterIndex) - chapterStart
        let total = timeline.total
        let percent = total > 0 ? Int(time / total * 100) : 0
        var lines = [
            "",
            "  " + Output.bold(summary.title),
            "  " + [summary.authors.isEmpty ? nil : "by \(summary.authors)",
                    summary.narrators.isEmpty ? nil : "read by \(summary.narrators)"].compactMap { $0 }.joined(separator: " · "),
            "",
            "  Chapter \(chapterIndex + 1) of \(book.chapters.count): \(chapter.title)",
            "  chapter  \(Clock.format(time - chapterStart)) / \(Clock.format(chapterLength))"
                + "   −\(Clock.format(max(0, chapterLength - (time - chapterStart))))",
            "  book     \(Clock.format(time)) / \(Clock.format(total))   −\(Clock.format(max(0, total - time)))   \(percent)%",
            "  " + bar(fraction: total > 0 ? time / total : 0, width: max(10, min(width - 4, 72))),
            "",
        ]
        var status = [stateLabel(state), ListenMachine.speedLabel(speed)]
        switch sleep {
        case .seconds(let left)?: status.append("sleep in \(Clock.format(max(0, left)))")
        case .endOfChapter?: status.append("sleep at chapter end")
        case nil: break
        }
        if let volume { status.append(volume) }
        if let download = downloadStatus(book: book, downloading: downloading, waitingFor: waitingFor) {
            status.append(download)
        }
        lines.append("  " + status.joined(separator: " · "))
        lines.append("  " + (message ?? ""))
        lines.append("")
        lines.append(Output.dim("  space pause · ←/→ 30 s · ,/. 5 s · n/p chapter · [/] speed · t contents · s sleep · "
                                + "b bookmark · ? help · q quit"))
        return lines
    }

    static func stateLabel(_ state: Player.State) -> String {
        switch state {
        case .playing: "▶ playing"
        case .paused: "❚❚ paused"
        case .buffering: "… buffering"
        case .finished: "■ finished"
        case .stopped: "■ stopped"
        }
    }

    static func bar(fraction: Double, width: Int) -> String {
        let filled = Int((min(1, max(0, fraction)) * Double(width)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    }

    static func contents(
        book: Audiobook, timeline: Timeline, selection: Int, current: Int, message: String?, rows: Int
    ) -> [String] {
        var lines = ["", "  " + Output.bold("Contents") + " — ↑/↓ choose · enter play · t or esc back",
                     "  " + (message ?? "")]
        let room = max(3, rows - lines.count - 1)
        let first = min(max(0, selection - room / 2), max(0, book.chapters.count - room))
        for index in first..<min(book.chapters.count, first + room) {
            let chapter = book.chapters[index]
            let part = book.parts[chapter.part]
            let onDisk = FileManager.default.fileExists(atPath: part.file.path)
            let availability = onDisk ? "" : "  (" + (part.progress.map { "downloading \($0)" } ?? "not downloaded") + ")"
            let marker = index == selection ? "›" : " "
            let playing = index == current ? "▶" : " "
            let line = "\(marker)\(playing) \(String(format: "%3d", index + 1))  \(Clock.format(timeline.chapterStart(index)))  "
                + chapter.title + availability
            lines.append(index == selection ? Output.bold(line) : onDisk ? line : Output.dim(line))
        }
        return lines
    }

    static func help(skip: Double) -> [String] {
        [
            "", "  " + Output.bold("Keys"), "",
            "  space      play / pause",
            "  ← / →      back / forward \(Int(skip)) s",
            "  , / .      back / forward 5 s",
            "  n / p      next chapter / start of this chapter (again: the one before)",
            "  [ / ]      slower / faster by 0.25× (0.5× to 3×, pitch kept)",
            "  t          table of contents",
            "  s          sleep timer: 15, 30, 45, 60 min, end of chapter, off",
            "  b          bookmark this place",
            "  9 / 0      volume down / up by 10%",
            "  m          mute / unmute",
            "  B          bookmarks: jump to one or delete it",
            "  j          jump to where another device is ahead (when offered)",
            "  ?          this help",
            "  q          quit (the position is saved)",
            "", "  Press any key to go back.",
        ]
    }
}
