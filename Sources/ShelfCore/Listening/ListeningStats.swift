import Foundation
import GRDB

/// What `shelf stats` shows: time heard per day and per title, titles finished, the current streak.
public struct ListeningStats: Codable, Sendable, Equatable {
    public enum Period: String, Codable, Sendable {
        case week, month, year, title
    }

    public struct Day: Codable, Sendable, Equatable {
        /// The local date, `2026-11-28`.
        public var date: String
        public var seconds: Double
    }

    public struct Title: Codable, Sendable, Equatable {
        public var library: String
        public var id: String
        public var shortID: String
        public var title: String
        public var seconds: Double
        public var sessions: Int
    }

    public struct Finished: Codable, Sendable, Equatable {
        public var library: String
        public var id: String
        public var title: String
        public var at: Date
    }

    public var period: Period
    /// The first local day counted (the period's), and the last (today).
    public var from: String
    public var to: String
    /// Seconds of the clock heard in the period.
    public var seconds: Double
    /// Every day of the period, oldest first, with what was heard (0 for a day without).
    public var days: [Day]
    /// Most heard first.
    public var titles: [Title]
    /// Titles finished in the period, newest first.
    public var finished: [Finished]
    /// Days in a row with some listening, up to today (or yesterday, when nothing yet today).
    public var streak: Int
    /// The sessions themselves, newest first (with --title, and in --json).
    public var sessions: [ListeningSession]
}

extension Store {
    /// The listening statistics of a period ending today (`now`), in the local calendar; with `title`, of that
    /// title over all time.
    public func listeningStats(
        _ period: ListeningStats.Period, title: EditionRef? = nil, now: Date = Date(), calendar: Calendar = .current
    ) throws -> ListeningStats {
        let today = calendar.startOfDay(for: now)
        let dayCount = switch period {
        case .week: 7
        case .month: 30
        case .year: 365
        case .title: 0
        }
        let sessions = try listeningSessions(of: title)
        let first: Date = if period == .title {
            sessions.last.map { calendar.startOfDay(for: $0.startedAt) } ?? today
        } else {
            calendar.date(byAdding: .day, value: -(dayCount - 1), to: today)!
        }
        let inPeriod = sessions.filter { $0.startedAt >= first }
        let formatter = DateFormatter()
        formatter.calendar = calendar
        formatter.timeZone = calendar.timeZone
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        var perDay: [String: Double] = [:]
        for session in inPeriod { perDay[formatter.string(from: session.startedAt), default: 0] += session.heard }
        var days: [ListeningStats.Day] = []
        var day = first
        while day <= today {
            let key = formatter.string(from: day)
            days.append(ListeningStats.Day(date: key, seconds: perDay[key] ?? 0))
            day = calendar.date(byAdding: .day, value: 1, to: day)!
        }
        // The streak looks back over every session, not only the period's.
        let heardOn = Set(sessions.map { formatter.string(from: $0.startedAt) })
        var streak = 0
        var cursor = heardOn.contains(formatter.string(from: today)) ? today : calendar.date(byAdding: .day, value: -1, to: today)!
        while heardOn.contains(formatter.string(from: cursor)) {
            streak += 1
            cursor = calendar.date(byAdding: .day, value: -1, to: cursor)!
        }
        let libraries = Dictionary(uniqueKeysWithValues: try self.libraries().map { ($0.id, $0) })
        var titles: [Int64: ListeningStats.Title] = [:]
        for session in inPeriod {
            if titles[session.editionID] == nil {
                guard let named = try titleNames(session.editionID, libraries: libraries) else { continue }
                titles[session.editionID] = ListeningStats.Title(
                    library: named.library, id: named.id, shortID: named.shortID, title: named.title, seconds: 0, sessions: 0)
            }
            titles[session.editionID]!.seconds += session.heard
            titles[session.editionID]!.sessions += 1
        }
        var finished: [ListeningStats.Finished] = []
        for library in libraries.values {
            for (rowID, at) in try finishedAt(in: library.id) where at >= first {
                if let title, title.rowID != rowID { continue }
                guard let named = try titleNames(rowID, libraries: libraries) else { continue }
                finished.append(ListeningStats.Finished(library: library.name, id: named.id, title: named.title, at: at))
            }
        }
        return ListeningStats(
            period: period, from: formatter.string(from: first), to: formatter.string(from: today),
            seconds: inPeriod.reduce(0) { $0 + $1.heard }, days: days,
            titles: titles.values.sorted { ($0.seconds, $1.title) > ($1.seconds, $0.title) },
            finished: finished.sorted { $0.at > $1.at }, streak: streak, sessions: inPeriod)
    }

    /// A title's library, ids and title, by catalog row; nil when the catalog no longer has it.
    private func titleNames(_ rowID: Int64, libraries: [Int64: Library]) throws -> (library: String, id: String, shortID: String, title: String)? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT library_id, entry_id, title FROM edition WHERE id = ?",
                                             arguments: [rowID]),
                let library = libraries[row["library_id"]]
            else { return nil }
            let id: String = row["entry_id"]
            return (library.name, id, try ShortID.shortID(of: id, libraryID: library.id, in: db), row["title"])
        }
    }
}
