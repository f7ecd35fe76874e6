import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// What the full-screen player draws: pure functions of the session's state, one string per line.
enum ListenScreen {
    /// The screen for the machine's mode: the player, the table of contents or the keys.
    /// `cover` is the cover in character cells, drawn to the right of the player in a window wide enough for both.
    static func lines(of machine: ListenMachine, skip: Double, rows: Int, columns: Int, cover: [String] = []) -> [String] {
        let timeline = machine.timeline
        let rows = max(1, rows)
        let columns = max(1, columns)
        switch machine.mode {
        case .help: return help(skip: skip, rows: rows, columns: columns, page: machine.helpPage)
        case .bookmarks:
            let lines = bookmarks(machine.sync.bookmarks, book: machine.book, timeline: timeline, selection: machine.sync.selection,
                                  message: machine.message?.text, rows: rows)
            return lines.prefix(rows).map { TextWidth.fit($0, to: columns) }
        case .contents:
            let lines = contents(book: machine.book, timeline: timeline, selection: machine.tocSelection,
                                 current: timeline.chapter(at: machine.player.position), message: machine.message?.text, rows: rows,
                                 typed: machine.tocTyped)
            return lines.prefix(rows).map { TextWidth.fit($0, to: columns) }
        case .player, .prompt:
            var message = machine.message?.text
            if case .prompt(let prompt) = machine.mode {
                // The end of what is typed stays in sight, with a cursor after it.
                message = TextWidth.tail("\(prompt.question) \(prompt.text)▏", max(1, columns - 2))
            }
            // The cover beside the player when both fit: 100 columns and as many rows as it has.
            let coverWidth = cover.map(TextWidth.of).max() ?? 0
            let besides = !cover.isEmpty && columns >= 100 && rows >= cover.count + 2
            let text = player(
                book: machine.book, timeline: timeline, position: machine.player.position, state: machine.player.state,
                speed: machine.speed, sleep: machine.sleep, downloading: machine.download != nil,
                message: message, skip: skip, rows: rows, width: besides ? columns - coverWidth - 3 : columns,
                waitingFor: machine.player.state == .buffering ? machine.player.bufferingPart : nil,
                volume: machine.volumeLabel,
                skipping: machine.skipsSilence ? machine.player.silenceSaved : nil)
            guard besides else { return text }
            let left = columns - coverWidth - 3
            var lines = text
            while lines.count < cover.count + 1 { lines.append("") }
            for (index, art) in cover.enumerated() {
                let row = index + 1
                lines[row] = lines[row] + String(repeating: " ", count: max(0, left - TextWidth.of(lines[row]))) + "  " + art
            }
            return lines
        }
    }

    static func player(
        book: Audiobook, timeline: Timeline, position: PlaybackPosition, state: Player.State, speed: Double,
        sleep: SleepTimer?, downloading: Bool, message: String?, skip: Double = 30, rows: Int = 24, width: Int,
        waitingFor: Int? = nil, volume: String? = nil, skipping: Double? = nil
    ) -> [String] {
        let summary = book.summary
        let chapterIndex = timeline.chapter(at: position)
        let time = timeline.bookTime(position)
        let chapterStart = timeline.chapterStart(chapterIndex)
        let chapterLength = timeline.chapterEnd(chapterIndex) - chapterStart
        let total = timeline.total
        // The end is 100%, though the last frame heard may be a hair before it.
        let percent = state == .finished ? 100 : total > 0 ? Int(time / total * 100) : 0
        let byline = [summary.authors.isEmpty ? nil : "by \(summary.authors)",
                      summary.narrators.isEmpty ? nil : "read by \(summary.narrators)"].compactMap { $0 }.joined(separator: " · ")
        // Each line with its rank: when the window is short, the highest go first (see `Layout`).
        var lines: [Layout.Line] = [
            .init("", rank: 100),
        ]
        // A long title takes two lines in a narrow window rather than losing its end: the title outlives the byline.
        let titleLines = Layout.wrap(summary.title, width: max(8, width - 2))
        lines.append(.init("  " + Output.bold(titleLines[0]), rank: 20))
        if titleLines.count > 1 {
            lines.append(.init("  " + Output.bold(titleLines.dropFirst().joined(separator: " ")), rank: 30))
        }
        lines += [
            .init("  " + byline, rank: 90),
            .init("", rank: 99),
            .init("  " + chapterLabel(chapterIndex, of: book), rank: 25),
            // Time left is what the listener will wait: at the speed playing.
            .init("  chapter  \(Clock.format(time - chapterStart)) / \(Clock.format(chapterLength))"
                  + "   −\(Clock.format(max(0, chapterLength - (time - chapterStart)) / speed))", rank: 80),
            .init("  book     \(Clock.format(time)) / \(Clock.format(total))   −\(Clock.format(max(0, total - time) / speed))"
                  + "   \(percent)%", rank: 12),
            .init("  " + bar(fraction: total > 0 ? time / total : 0, width: max(1, min(width - 4, 72))), rank: 70),
            .init("", rank: 98),
        ]
        var status = [stateLabel(state), ListenMachine.speedLabel(speed)]
        switch sleep {
        case .seconds(let left)?: status.append("sleep in \(Clock.format(max(0, left)))")
        case .endOfChapter(let chapter)?:
            let current = max(0, timeline.chapter(at: position))
            let left = max(0, timeline.chapterEnd(chapter) - time) / speed
            status.append(chapter <= current ? "sleep at chapter end (\(Clock.format(left)))"
                          : "sleep after \(chapter - current + 1) chapters (\(Clock.format(left)))")
        case nil: break
        }
        if let volume { status.append(volume) }
        if let skipping { status.append(skipping >= 1 ? "skipping silence, \(Clock.format(skipping)) saved" : "skipping silence") }
        if let download = downloadStatus(book: book, downloading: downloading, waitingFor: waitingFor) {
            status.append(download)
        }
        lines.append(.init("  " + status.joined(separator: " · "), rank: 5))
        lines.append(.init("  " + (message ?? ""), rank: message == nil ? 50 : 15))
        lines.append(.init("", rank: 97))
        return Layout.fit(lines, hints: hints(skip: skip), rows: rows, columns: width)
    }

    /// "Chapter 1 (1 of 6)": the entry's own title, then its number as a person counts chapters (opening credits
    /// and the like have none, and are named alone).
    static func chapterLabel(_ index: Int, of book: Audiobook) -> String {
        let numbers = ChapterNumbers(book: book)
        guard let number = numbers.numbers[index] else { return book.chapters[index].title }
        return "\(book.chapters[index].title) (\(number) of \(numbers.count))"
    }

    /// What ←/→ skip, as the hint and help say it: "10 s", "1:30".
    static func skipLabel(_ skip: Double) -> String {
        skip < 60 ? "\(Int(skip.rounded())) s" : Clock.format(skip)
    }

    /// The key hints under the player, most used first; `? help` and `q quit` are always shown.
    static func hints(skip: Double) -> [String] {
        ["space pause", "←/→ \(skipLabel(skip))", "↑/↓ 5 min", ",/. 5 s", "n/p chapter", "[/] speed", "g go to",
         "t contents", "s sleep", "b bookmark", "F finished", "B bookmarks", "9/0 volume", "m mute", "S skip silence"]
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
        book: Audiobook, timeline: Timeline, selection: Int, current: Int, message: String?, rows: Int, typed: String = ""
    ) -> [String] {
        let numbers = ChapterNumbers(book: book)
        let header = typed.isEmpty ? "↑/↓ or a number choose · enter play · t or esc back" : "chapter \(typed)▏ · enter play"
        var lines = ["", "  " + Output.bold("Contents") + " — " + header, "  " + (message ?? "")]
        let room = max(3, rows - lines.count - 1)
        let first = min(max(0, selection - room / 2), max(0, book.chapters.count - room))
        for index in first..<min(book.chapters.count, first + room) {
            let chapter = book.chapters[index]
            let part = book.parts[chapter.part]
            let onDisk = FileManager.default.fileExists(atPath: part.file.path)
            let availability = onDisk ? "" : "  (" + (part.progress.map { "downloading \($0)" } ?? "not downloaded") + ")"
            let marker = index == selection ? "›" : " "
            let playing = index == current ? "▶" : " "
            let number = numbers.numbers[index].map { String(format: "%3d", $0) } ?? "  ·"
            let start = Clock.format(timeline.chapterStart(index))
            let length = Clock.format(timeline.chapterEnd(index) - timeline.chapterStart(index))
            let line = "\(marker)\(playing) \(number)  \(String(repeating: " ", count: max(0, 7 - start.count)))\(start)  "
                + "\(String(repeating: " ", count: max(0, 7 - length.count)))\(length)  " + chapter.title + availability
            lines.append(index == selection ? Output.bold(line) : onDisk ? line : Output.dim(line))
        }
        return lines
    }

    /// The keys, one per line, for the help screen.
    static func helpEntries(skip: Double) -> [(keys: String, what: String)] {
        [
            ("space", "play / pause"),
            ("← / →", "back / forward \(skipLabel(skip)) (--skip, kept)"),
            ("↑ / ↓", "back / forward 5 min"),
            (", / .", "back / forward 5 s"),
            ("n / p", "next chapter / start of this (again: the one before)"),
            ("[ / ]", "slower / faster by 0.25× (0.5× to 4×, pitch kept)"),
            ("{ / }", "slower / faster by 0.05×"),
            ("g", "go to a time: 1:23:00, 83:00, 45 (s) or 50%"),
            ("t", "table of contents"),
            ("s", "sleep timer: minutes, 1h, c (chapter end), 3c (chapters), off"),
            ("+", "five more minutes on the sleep timer"),
            ("b", "bookmark this place (a name is asked)"),
            ("B", "bookmarks: jump to one or delete it"),
            ("j / x", "go to / stay away from the place another device offered"),
            ("9 / 0", "volume down / up by 10% (to 200%, never clipping)"),
            ("m", "mute / unmute"),
            ("S", "skip silence: pauses over 0.6 s cut to 0.3 s (kept)"),
            ("F", "mark the book finished"),
            ("Ctrl-Z", "suspend (paused; fg brings it back)"),
            ("?", "this help"),
            ("q", "quit (the position is saved)"),
        ]
    }

    static func help(skip: Double, rows: Int = 24, columns: Int = 80, page: Int = 0) -> [String] {
        Layout.help(helpEntries(skip: skip), rows: max(1, rows), columns: max(1, columns), page: page)
    }
}
