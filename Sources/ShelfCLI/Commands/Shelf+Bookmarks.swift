import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf bookmarks ID [--delete N]`: a title's bookmarks from every device, and deleting one.
    struct Bookmarks: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bookmarks",
            abstract: "List an audiobook's bookmarks from every device, or delete one.",
            discussion: """
                Asks the library's annotation service for the bookmarks your other devices made (quietly, with a \
                short timeout; offline, one line on standard error says the list is this computer's only), then \
                lists them in book order: number, time in the book, chapter, name, device and when. A bookmark \
                deleted on another device disappears here too. --delete N deletes bookmark N of that list, here \
                and, at once when it can, on the library; otherwise the deletion waits for the next `shelf sync` \
                or `shelf listen`. A number that is not in the list exits 66. The bookmarks screen of \
                `shelf listen` (key B) shows the same list.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The title's id, or a unique part of it.") var id: String
        @Option(name: .long, help: ArgumentHelp("Delete bookmark N (its number in the list).", valueName: "N"))
        var delete: Int?

        func validate() throws {
            if let delete, delete < 1 { throw ValidationError("--delete takes a bookmark's number, from 1 (see shelf bookmarks ID)") }
        }

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                let edition = try global.resolve(id, store: store, library: library)
                var configuration = global.httpConfiguration
                // The list is there without the library: asking it must not keep the patron waiting.
                configuration.connectTimeout = 3
                configuration.stallTimeout = 5
                let positions = try PositionSync(store: store, home: global.resolvedHome, library: library, configuration: configuration)
                positions.warn = { Output.error("shelf: warning: \($0)") }
                if let delete {
                    let deletion = try positions.deleteBookmark(number: delete, of: edition)
                    if output.json { return try Output.json(deletion.report) }
                    if !global.quiet { Output.line(Self.describe(deletion)) }
                    return
                }
                let report = try positions.bookmarkReport(of: edition)
                if let reason = report.localOnly, !global.quiet {
                    Output.error("shelf: showing the bookmarks stored here only (\(reason))")
                }
                if output.json { return try Output.json(report) }
                if !global.quiet { Self.print(report) }
            }
        }

        static func describe(_ deletion: BookmarkDeletion) -> String {
            let entry = deletion.bookmark
            var line = "Deleted bookmark \(entry.number) at \(Clock.format(entry.bookSeconds ?? entry.seconds))"
                + (entry.name.map { " (\($0))" } ?? "") + "."
            if let reason = deletion.pendingReason {
                line += " The library still has it (\(reason)): the next shelf sync or shelf listen deletes it there."
            }
            return line
        }

        static func print(_ report: BookmarkReport, now: Date = Date()) {
            Output.line(Output.bold(report.title))
            guard !report.bookmarks.isEmpty else {
                return Output.line("No bookmarks yet: press b while listening (shelf listen) to add one.")
            }
            Output.table(
                ["#", "IN BOOK", "CHAPTER", "NAME", "DEVICE", "WHEN"],
                report.bookmarks.map { entry in
                    let time = entry.bookSeconds.map(Clock.format) ?? "part \(entry.part + 1) \(Clock.format(entry.seconds))"
                    let age = now.timeIntervalSince(entry.at)
                    return ["\(entry.number)", time, entry.partTitle ?? "part \(entry.part + 1)", entry.name ?? "",
                            entry.deviceName,
                            age < 7 * 86_400 ? Output.relative(entry.at, now: now) : Output.timestamp(entry.at)]
                })
        }
    }
}

extension BookmarkDeletion {
    /// What `--delete N --json` prints.
    struct Report: Encodable {
        var deleted: BookmarkReport.Entry
        var pending: Bool
        var pendingReason: String?
    }

    var report: Report { Report(deleted: bookmark, pending: pendingReason != nil, pendingReason: pendingReason) }
}
