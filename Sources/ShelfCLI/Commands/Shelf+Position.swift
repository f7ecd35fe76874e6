import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf position ID`: where the patron is in a title, per device.
    struct Position: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "position",
            abstract: "Show where you are in an audiobook, on this computer and your other devices.",
            discussion: """
                Asks the library's annotation service for the positions your other devices saved (when online and \
                signed in), then lists each device's chapter, offset and time, newest first, with the title's \
                progress and whether a position waits to be pushed (`shelf sync` pushes it). An annotation that is \
                not a usable position of this title (an ebook location, an offset past the end of its part, a part \
                not in the book, another title's) is ignored with a warning that says why; it never replaces the \
                position stored here.

                Positions merge, never clobber: a position another device saved after this computer last pushed its \
                own is news. Within 30 s of this computer's place it needs no answer; elsewhere it is offered \
                ("Another device (Pixel 7) was at 6:30, 2 hours ago") and this computer's position is not pushed \
                over it until you choose: `j` or `x` in `shelf listen`, a move of your own there, or \
                --take-other / --keep-here here.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "The title's id, or a unique part of it.") var id: String
        @Flag(help: "Go to the place another device saved and offered: it becomes this computer's, and is pushed.")
        var takeOther = false
        @Flag(help: "Keep this computer's place over the one another device offered, and push it.")
        var keepHere = false

        func validate() throws {
            if takeOther && keepHere { throw ValidationError("--take-other and --keep-here cannot be given together.") }
        }

        func run() throws {
            try withFailureHandling {
                let (store, library) = try global.openLibrary()
                let edition = try global.resolve(id, store: store, library: library)
                let positions = try PositionSync(
                    store: store, home: global.resolvedHome, library: library, configuration: global.httpConfiguration)
                positions.warn = { Output.error("shelf: warning: \($0)") }
                if takeOther || keepHere {
                    // What the library holds now: the offer may have been answered on another device meanwhile.
                    _ = try? positions.pull(edition)
                    let answered = try positions.answerOffer(of: edition, take: takeOther)
                    if !global.quiet && !output.json {
                        Output.line(answered.map { offer in
                            takeOther ? "Took the place \(offer.deviceName ?? "the other device") saved." : "Kept this computer's place."
                        } ?? "No other device's place waits for an answer.")
                    }
                    positions.pushPending(pulled: [edition])
                }
                let report = try positions.report(of: edition)
                if output.json { return try Output.json(report) }
                if !global.quiet { Self.print(report) }
            }
        }

        static func print(_ report: PositionReport, now: Date = Date()) {
            var heading = "\(report.title) — \(report.consumption.label(percent: report.percent))"
            if report.speed != 1 { heading += " · speed \(report.speed.formatted(.number.precision(.fractionLength(0...2))))×" }
            Output.line(Output.bold(heading))
            if let reason = report.localOnly { Output.line("Showing the positions stored here only (\(reason)).") }
            if report.devices.isEmpty {
                Output.line("No position yet: not played on any device.")
            } else {
                Output.table(
                    ["DEVICE", "PART", "IN PART", "IN BOOK", "WHEN"],
                    report.devices.map { device in
                        var inBook = device.bookSeconds.map(Clock.format) ?? ""
                        if let total = report.duration, !inBook.isEmpty { inBook += " of \(Clock.format(total))" }
                        if let percent = device.percent { inBook += " (\(Int(percent.rounded(.down)))%)" }
                        let part = "\(device.part + 1)" + (device.partTitle.map { " \($0)" } ?? "")
                        let age = now.timeIntervalSince(device.at)
                        return [device.name, part, Clock.format(device.seconds), inBook,
                                age < 7 * 86_400 ? Output.relative(device.at, now: now) : Output.timestamp(device.at)]
                    })
            }
            // What is left, as the listener will wait it: at the book's speed.
            if let total = report.duration, let here = report.devices.first(where: \.thisDevice)?.bookSeconds,
                report.consumption != .finished
            {
                let left = max(0, total - here)
                Output.line("Left: \(Clock.format(left / report.speed))"
                            + (report.speed != 1 ? " at \(Clock.speed(report.speed)) (\(Clock.format(left)) at 1×)" : "") + ".")
            }
            if !report.sessions.isEmpty {
                Output.line("")
                Output.table(["LAST SESSIONS", "HEARD", "FROM", "TO", "SPEED"], report.sessions.map { session in
                    func place(_ part: Int, _ seconds: Double) -> String { "\(Clock.format(seconds)) of part \(part + 1)" }
                    return [Output.timestamp(session.startedAt), Clock.format(session.heard),
                            place(session.fromPart, session.fromSeconds), place(session.toPart, session.toSeconds),
                            Clock.speed(session.speed)]
                })
                Output.line("")
            }
            if let offer = report.offer {
                let place = offer.bookSeconds.map(Clock.format) ?? "\(Clock.format(offer.seconds)) into part \(offer.part + 1)"
                Output.line("\(offer.name == "another device" ? "Another device" : "Another device (\(offer.name))") was at "
                            + "\(place), \(Output.relative(min(offer.at, now), now: now)): this computer's place is not pushed "
                            + "over it until you choose: `shelf position \(report.shortID) --take-other` goes there, "
                            + "`--keep-here` keeps this computer's.")
            } else if report.pendingPush {
                Output.line("Waiting to be pushed to the library" + (report.pendingReason.map { " (\($0))" } ?? "") + ".")
            }
        }
    }
}
