import Foundation
import ShelfCLI
import ShelfCore
import ShelfPlayback

/// The keys that ask something first (`g` go to a time, `b` a bookmark's name, `F` mark finished) through a one-line
/// prompt, and the ones added with them: ↑/↓ and Ctrl-Z.
extension ListenMachine {
    /// What ↑ and ↓ jump, in seconds.
    static let bigSkip: Double = 5 * 60
    /// The longest answer a prompt takes.
    static let promptLimit = 200

    /// A question on the message line and what has been typed so far.
    struct Prompt: Equatable {
        enum Purpose: Equatable {
            /// `g`: a time to go to.
            case goTo
            /// `b`: a name for a bookmark at the place `b` was pressed.
            case bookmark(Place)
            /// `F`: yes or no; `y` answers at once, any other key is no.
            case finish
            /// `s`: the sleep timer, in minutes or chapters.
            case sleep
        }

        var purpose: Purpose
        var question: String
        var text = ""
    }

    mutating func ask(_ purpose: Prompt.Purpose) -> [Effect] {
        let question = switch purpose {
        case .goTo: "Go to (1:23:00, 83:00, 45 or 50%):"
        case .bookmark(let place): "Bookmark at \(Clock.format(timeline.bookTime(place.position))), name (enter to skip):"
        case .finish: "Mark \(book.summary.title) finished? (y/N)"
        case .sleep: "Sleep after (minutes, 1h, c = this chapter, 2c = two chapters, off; enter = chapter end):"
        }
        mode = .prompt(Prompt(purpose: purpose, question: question))
        message = nil
        return []
    }

    /// A key while a prompt is open: typing, backspace, enter answers, esc (or Ctrl-C) cancels.
    mutating func answer(_ key: Key, to prompt: Prompt) -> [Effect] {
        var prompt = prompt
        if prompt.purpose == .finish {
            mode = .player
            guard key == .character("y") || key == .character("Y") else {
                show("Not marked finished.")
                return []
            }
            return markFinished()
        }
        switch key {
        case .character(let character):
            guard !Self.isControl(character), prompt.text.count < Self.promptLimit else { return [] }
            prompt.text.append(character)
            mode = .prompt(prompt)
        case .backspace:
            if !prompt.text.isEmpty { prompt.text.removeLast() }
            mode = .prompt(prompt)
        case .escape, .interrupt:
            mode = .player
        case .enter:
            mode = .player
            return submit(prompt)
        default:
            break
        }
        return []
    }

    private static func isControl(_ character: Character) -> Bool {
        character.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80..<0xA0).contains($0.value) }
    }

    private mutating func submit(_ prompt: Prompt) -> [Effect] {
        let text = prompt.text.trimmingCharacters(in: .whitespaces)
        switch prompt.purpose {
        case .goTo:
            return text.isEmpty ? [] : goTo(text)
        case .bookmark(let place):
            let time = Clock.format(timeline.bookTime(place.position))
            show(text.isEmpty ? "Bookmark added at \(time)." : "Bookmark “\(text)” added at \(time).")
            return [.addBookmark(place, name: text.isEmpty ? nil : text)] + push()
        case .finish:
            return []
        case .sleep:
            return setSleepTimer(SleepTimer.parse(text))
        }
    }

    /// Seconds into the book that `text` names: "1:23:00", "83:00", "45" (seconds), "90s", or "50%" of `total`.
    static func goToTime(_ text: String, total: Double) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix("%") {
            let number = text.dropLast().trimmingCharacters(in: .whitespaces)
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                let percent = Double(number), percent.isFinite
            else { return nil }
            return total * percent / 100
        }
        return Clock.parse(text)
    }

    /// `g`: a seek within the book, saved; a time past its end (or not a time) is said and nothing moves, so the
    /// book is never made finished this way.
    private mutating func goTo(_ text: String) -> [Effect] {
        guard let target = Self.goToTime(text, total: timeline.total) else {
            show("“\(text)” is not a time: type one like 1:23:00, 83:00, 45 or 50%.")
            return []
        }
        guard target < timeline.total else {
            show("\(text) is past the end of the book (\(Clock.format(timeline.total))); not moved.")
            return []
        }
        show("Went to \(Clock.format(target)).")
        return seekAndSave(timeline.place(min(target, max(0, timeline.total - 0.25))))
    }

    /// `F`: saved as finished and pushed, as when the end is reached; playing on (space) makes it in progress again.
    private mutating func markFinished() -> [Effect] {
        let effects = pause() + save(force: true, finished: true) + push()
        markedFinished = true
        show("Marked \(book.summary.title) finished; the library is told. Space plays on, q quits.", seconds: 3600)
        return effects
    }

    /// Ctrl-Z: paused and saved before the terminal is given back; still paused when the shell's `fg` brings it back.
    mutating func suspend() -> [Effect] {
        var effects: [Effect] = []
        if player.state == .playing || player.state == .buffering { effects += pause() }
        effects += save(force: true) + push()
        if case .prompt = mode { mode = .player }
        show("Paused while suspended. Press space to play.", seconds: 3600)
        return effects + [.suspend]
    }
}
