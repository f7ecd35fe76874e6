import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf events`: the event log, marked seen once shown.
    struct Events: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "events",
            abstract: "List what happened: holds ready, new loans, loans due or expired, downloads, updates, news.",
            discussion: """
                Every event is kept once in the store's event log, whichever command or sync noticed it: a hold \
                ready, a new loan, a loan due within 3 days (once per loan), a loan expired (its files are removed \
                at its end, at the next shelf command, even offline), a download done or failed, a title updated \
                by its publisher, a new title by a followed author or in a followed series, a library \
                announcement, another device's newer place in a title waiting for your answer (`shelf position`). \
                `shelf sync` prints each new one once (with --quiet, only those). Listing them here \
                marks them seen; --unseen lists only those not listed before.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        @Flag(name: .long, help: "Only the events not listed before.")
        var unseen = false

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                let ids = try global.library.map { [try store.library(named: $0).id] }
                let events = try store.notices(libraryIDs: ids, unseen: unseen)
                try store.markNoticesSeen(events.map(\.id))
                if output.json { return try Output.json(events) }
                if events.isEmpty {
                    if !global.quiet { Output.line(unseen ? "No new events." : "No events yet.") }
                    return
                }
                let many = Set(events.map(\.library)).count > 1
                for event in events {
                    let mark = event.seenAt == nil ? "*" : " "
                    Output.line("\(mark) \(Output.timestamp(event.at))  \(many ? event.library + ": " : "")\(event.text)")
                }
            }
        }
    }
}
