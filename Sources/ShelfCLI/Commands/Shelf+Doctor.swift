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

                Exits 0 when there is no problem, 95 when there is at least one. Under --json, the checks are \
                an array of {"check", "status", "detail", "fix"}; with a problem, they come under "checks" in \
                the error object.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try withFailureHandling {
                let home = global.resolvedHome
                var checks = [ShelfCore.Doctor.checkPackages(), audioCheck()]
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
