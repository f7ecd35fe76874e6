import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf doctor`: what is wrong with this set-up, one line per check, each problem with its fix.
    struct Doctor: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check this set-up: packages, audio, the store, sign-in files, libraries, the schedule, disk.",
            discussion: """
                One line per check: ok, problem (with its fix after "fix:"), or note (worth knowing, not a \
                failure). The checks: the Debian packages shelf runs on (dpkg-query); the audio device, opened \
                and closed by shelf-listen as SDL would for playing (SDL_AUDIODRIVER is honoured); the catalog \
                and the positions databases (PRAGMA integrity_check, read-only); the modes of the data \
                directory, the credentials directory (0700) and each sign-in file (0600); each library, reached \
                with its stored sign-in (its loans feed, else its catalog root; at most 10 seconds each; the \
                sign-in is never changed or erased); the schedule (`shelf schedule`'s timer, or a crontab \
                line); the free space where the books are (a problem under 1 GB).

                With --repair, a damaged database is repaired first: it is renamed aside (never removed: \
                shelf.sqlite.damaged-DATE), a new one is made, and every row that can still be read of the \
                damaged one is copied into it: the libraries and their settings, follows, the download queue, \
                titles, loans, downloads and events; positions, bookmarks and the positions not yet sent. What \
                is cache (the catalog's pages) is left for the next `shelf sync`, which then fetches every page \
                again and brings the catalog back to what the library has. Sign-ins live in files of their own \
                and are not touched. It waits for no sync: while one runs, it says so and changes nothing.

                Exits 0 when there is no problem, 95 when there is at least one. Under --json, the checks are \
                an array of {"check", "status", "detail", "fix"}; with a problem, they come under "checks" in \
                the error object.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        @Flag(help: "Repair a damaged database first, keeping every row of it that can be read (see below).")
        var repair = false

        func run() throws {
            try withFailureHandling {
                let home = global.resolvedHome
                var checks = repair ? try repaired(home) : []
                checks += [ShelfCore.Doctor.checkPackages(), audioCheck()]
                let stores = ShelfCore.Doctor.checkStore(home)
                checks += stores
                checks.append(ShelfCore.Doctor.checkModes(home))
                if stores[0].status == .ok {
                    let store = try global.openStore()
                    let libraries = try store.libraries()
                    let credentials = CredentialStore(home: home)
                    checks += libraries.map { ShelfCore.Doctor.checkLibrary($0, credentials: credentials) }
                    if libraries.isEmpty {
                        checks.append(DoctorCheck("libraries", .note, "no library yet", fix: "`shelf library add NAME URL` (or try `shelf demo`)"))
                    }
                }
                checks.append(ShelfCore.Doctor.checkSchedule())
                checks.append(ShelfCore.Doctor.checkDisk(home))
                let problems = checks.filter { $0.status == .problem }.count
                let summary = problems == 1 ? "1 problem found" : "\(problems) problems found"
                if output.json {
                    guard problems > 0 else { return try Output.json(checks) }
                    Output.error("shelf: \(summary)")
                    throw ReportedFailure(message: summary, exit: .doctorFoundProblems, partial: "checks", checks)
                }
                for check in checks where !(global.quiet && check.status == .ok) {
                    let status = TextWidth.pad(check.status.rawValue, to: 8)
                    let fix = check.fix.map { " — fix: \($0)" } ?? ""
                    let text = "\(status) \(check.check): \(check.detail)\(fix)"
                    Output.line(check.status == .problem ? Output.bold(text) : text)
                }
                if problems > 0 {
                    Output.error("shelf: \(summary)")
                    throw ReportedFailure(message: summary, exit: .doctorFoundProblems, partial: "checks", checks)
                }
            }
        }

        /// Repairs the damaged databases, one note each for what was kept.
        private func repaired(_ home: Home) throws -> [DoctorCheck] {
            // A sync writing the catalog while it is rebuilt would write into the file set aside.
            guard let lock = try FileLock.acquire(home.syncLock, timeout: 0) else {
                throw SyncError.busy(pid: FileLock.holder(of: home.syncLock))
            }
            return try withExtendedLifetime(lock) {
                let reports = try Store.repair(home)
                if reports.isEmpty { return [DoctorCheck("repair", .ok, "nothing to repair: both databases pass their check")] }
                return reports.map { report in
                    let name = report.file.lastPathComponent
                    var detail = "\(name) rebuilt from what could be read: kept \(Self.kept(report))"
                    if !report.damaged.isEmpty { detail += "; rows were lost from \(report.damaged.joined(separator: ", "))" }
                    if report.newHeader { detail += "; its header was written anew" }
                    let fix = name == "shelf.sqlite"
                        ? "run `shelf sync`: it fetches every catalog page again (the damaged file is kept as \(report.aside.lastPathComponent))"
                        : "run `shelf sync` to fetch positions from the libraries (the damaged file is kept as \(report.aside.lastPathComponent))"
                    return DoctorCheck("repair", .note, detail, fix: fix)
                }
            }
        }

        /// The patron's rows a repair kept, in words: "2 libraries, 19873 titles, 3 loans".
        private static func kept(_ report: StoreSalvage.Report) -> String {
            let words: [(String, String, String)] = [
                ("library", "library", "libraries"), ("follow", "follow", "follows"), ("edition", "title", "titles"),
                ("loan", "loan", "loans"), ("part", "downloaded part", "downloaded parts"),
                ("download_queue", "queued download", "queued downloads"), ("event", "event", "events"),
                ("listening", "position", "positions"), ("bookmark", "bookmark", "bookmarks"),
                ("annotation_outbox", "position or bookmark not yet sent", "positions or bookmarks not yet sent"),
            ]
            let parts = words.compactMap { table, one, many -> String? in
                guard let count = report.kept[table] else { return nil }
                return "\(count) \(count == 1 ? one : many)"
            }
            return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
        }

        /// Opens and closes the audio device through the player, which is the program that links SDL.
        private func audioCheck() -> DoctorCheck {
            let program: String
            do {
                program = try SiblingProgram.player.locate()
            } catch {
                return DoctorCheck("audio", .problem, "\(error)", fix: "install shelf-listen with shelf (Scripts/install)")
            }
            let probe = ExternalProgram.run(program, ["--probe-audio"], timeout: 20)
            let said = probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let driver = ProcessInfo.processInfo.environment["SDL_AUDIODRIVER"].map { " (SDL_AUDIODRIVER=\($0))" } ?? ""
            if probe.succeeded { return DoctorCheck("audio", .ok, "an audio device opens\(driver)") }
            return DoctorCheck("audio", .problem, said.isEmpty ? "the audio probe failed: \(probe.firstLine)" : said,
                               fix: "start the sound server (PipeWire or PulseAudio), or set SDL_AUDIODRIVER (alsa, pulseaudio, pipewire)")
        }
    }
}
