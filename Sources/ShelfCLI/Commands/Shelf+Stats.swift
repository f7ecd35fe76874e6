import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf stats [--week|--month|--year|--title ID]`: how much the patron listened.
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Show how much you listened: per day, per title, titles finished, your streak.",
            discussion: """
                Counts the time heard in shelf listen on this computer (the clock's time, so ten minutes at 2× \
                count as ten minutes), from the listening log every session is kept in: this week by default (the \
                last 7 days, today included), or the last 30 days (--month) or 365 (--year), per day and per \
                title, with the titles finished in it and the current streak (days in a row with some listening, \
                up to today, or yesterday when nothing yet today). --title ID shows one title over all time with \
                its sessions. The log keeps every session for a year, then one per title and day. --json gives \
                it all, the sessions too.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Flag(name: .long, help: "The last 7 days (the default).") var week = false
        @Flag(name: .long, help: "The last 30 days.") var month = false
        @Flag(name: .long, help: "The last 365 days.") var year = false
        @Option(name: .long, help: ArgumentHelp("One title over all time, with its sessions.", valueName: "id")) var title: String?

        func validate() throws {
            if [week, month, year, title != nil].filter({ $0 }).count > 1 {
                throw ValidationError("give one of --week, --month, --year and --title")
            }
        }

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                var edition: EditionRef?
                if let title {
                    let library = try store.library(named: global.library)
                    edition = try global.resolve(title, store: store, library: library)
                }
                let period: ListeningStats.Period = edition != nil ? .title : month ? .month : year ? .year : .week
                let stats = try store.listeningStats(period, title: edition)
                if output.json { return try Output.json(stats) }
                if !global.quiet { Self.print(stats) }
            }
        }

        static func print(_ stats: ListeningStats) {
            let heading = switch stats.period {
            case .week: "This week"
            case .month: "The last 30 days"
            case .year: "The last 365 days"
            case .title: stats.titles.first?.title ?? "This title"
            }
            Output.line(Output.bold("\(heading) (\(stats.from) to \(stats.to)): \(Clock.format(stats.seconds)) heard"))
            guard stats.seconds > 0 else {
                Output.line("Nothing heard yet in this time: `shelf listen ID` plays a title, and every session is counted.")
                return
            }
            let most = stats.days.map(\.seconds).max() ?? 0
            // Per day for a week or a month; a year (or a title's life) is shown by the days heard.
            let days = stats.days.count <= 31 ? stats.days : stats.days.filter { $0.seconds > 0 }
            Output.table(["DAY", "HEARD", ""], days.map { day in
                let bar = most > 0 ? String(repeating: "█", count: Int((day.seconds / most * 20).rounded())) : ""
                return [day.date, day.seconds > 0 ? Clock.format(day.seconds) : "-", bar]
            })
            if stats.period != .title {
                Output.line("")
                Output.table(["ID", "TITLE", "HEARD", "SESSIONS"], stats.titles.map {
                    [$0.shortID, $0.title, Clock.format($0.seconds), "\($0.sessions)"]
                })
            } else {
                Output.line("")
                Output.table(["STARTED", "HEARD", "SPEED"], stats.sessions.map {
                    [Output.timestamp($0.startedAt), Clock.format($0.heard), Clock.speed($0.speed)]
                })
            }
            Output.line("")
            if stats.finished.isEmpty {
                Output.line("Finished: none in this time.")
            } else {
                Output.line("Finished: " + stats.finished.map { "\($0.title) (\(Output.timestamp($0.at)))" }.joined(separator: "; "))
            }
            Output.line("Streak: \(stats.streak) day\(stats.streak == 1 ? "" : "s") in a row.")
        }
    }
}

