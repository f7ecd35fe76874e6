import ArgumentParser
import Foundation
import ShelfCore

/// The exit status table, as documented in the man page.
enum ExitStatusTable {
    static let rows: [(ShelfExit, String)] = [
        (.success, "success"),
        (.failure, "a failure not listed below"),
        (.usage, "the command line is wrong"),
        (.badData, "a server sent a document shelf cannot use (malformed XML, HTML, not Atom, pagination loop, too large)"),
        (.notFound, "the library or title named is not in the store"),
        (.offline, "the server could not be reached (offline, DNS, refused, timed out)"),
        (.serverError, "the server answered with an error status, or cut the response short"),
        (.internalError, "an internal error in shelf"),
        (.storeFailure, "the local database is damaged or cannot be written"),
        (.busy, "another shelf sync is running, or the title is already playing in another shelf listen"),
        (.protocolError, "TLS verification failed, or too many redirects"),
        (.notPermitted, "not signed in, the library refused the card and PIN, or they were given for another URL"),
        (.configuration, "no library is configured"),
        (.storeLocked, "the database is locked by another process"),
        (.loanLimit, "the library refused a loan: the loan limit is reached"),
        (.holdLimit, "the library refused a hold: the hold limit is reached"),
        (.alreadyHave, "the title is already on loan or on hold"),
        (.serverNotFound, "the library does not know the title or loan"),
        (.unsupportedAuth, "the library's sign-in methods cannot be used from a terminal"),
        (.notAllowed, "the action does not apply to the title as it stands (see `shelf show`)"),
        (.protectedContent, "the title is protected by DRM shelf does not implement, or in no format it can play"),
        (.audioDevice, "no audio device could be opened (set SDL_AUDIODRIVER)"),
        (.playbackFailed, "the audiobook's files could not be played"),
        (.needsSignIn, "the library asks you to sign in first (HTTP Basic or Digest): run `shelf login`"),
        (.notACatalog, "the URL is not an OPDS catalog (HTML page, 404, JSON that is not OPDS), or leads to no title"),
        (.noSearch, "the library's catalog offers no search"),
        (.exportFailed, "shelf export could not write the file (FFmpeg could not read a part or write the m4b)"),
        (.noSuchPage, "the server has no page at the URL asked for (404): check the library's URL"),
        (.diskFull, "the disk is full, or has too little room for the download: the message names the disk"),
        (.doctorFoundProblems, "shelf doctor found a problem (each is printed with its fix)"),
        (.scheduleFailed, "shelf schedule could not enable or remove the timer, or cron cannot run that often"),
        (.nothingToSignIn, "the library asks for no sign-in: shelf login has nothing to do"),
        (.registryFailed, "the library registry answered an error or something that is not a list of libraries"),
        (.keyringUnavailable, "the desktop keyring holding the sign-in is locked or not running: unlock it"),
    ]

    static var text: String {
        rows.map { "  \($0.0.rawValue)  \($0.1)" }.joined(separator: "\n")
    }
}

/// How a failure reaches the patron: one line on standard error, and under `--json` also one JSON object on
/// standard output, `{"error": "…", "exit": N}`, in place of the command's usual JSON, so a script that reads
/// standard output always gets a JSON document.
package enum FailureReport {
    /// Whether the command line asks for JSON (`--json` before any `--`). Read from the arguments themselves, so
    /// that a command line that does not parse is answered in JSON too.
    package static func jsonRequested(_ arguments: [String] = CommandLine.arguments) -> Bool {
        arguments.dropFirst().prefix { $0 != "--" }.contains("--json")
    }

    /// Reports a failure: the line on standard error, the object on standard output under `--json`.
    package static func report(_ message: String, exit: Int32, partial: (key: String, json: Data)? = nil) {
        Output.error("shelf: \(message)")
        if jsonRequested() { printObject(message, exit: exit, partial: partial) }
    }

    /// Prints `{"error": message, "exit": N}` (with the partial results under their key) on standard output.
    package static func printObject(_ message: String, exit: Int32, partial: (key: String, json: Data)? = nil) {
        var object: [String: Any] = ["error": message, "exit": Int(exit)]
        if let partial, let value = try? JSONSerialization.jsonObject(with: partial.json, options: [.fragmentsAllowed]) {
            object[partial.key] = value
        }
        guard let data = try? JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return }
        print(String(decoding: data, as: UTF8.self))
    }

    /// Ends the process for an error that reached the top: under `--json` a command line that did not parse, or
    /// an error no command turned into a failure, is a JSON object on standard output too; the usual message
    /// goes to standard error either way.
    package static func exit<Command: ParsableCommand>(_ command: Command.Type, withError error: any Error) -> Never {
        if jsonRequested(), !(error is ExitCode), !(error is CleanExit) {
            let code = Command.exitCode(for: error).rawValue
            if code != 0 { printObject(Command.message(for: error), exit: code) }
        }
        command.exit(withError: error)
    }
}

/// A failure the command has already reported line by line (one library of several, one title of several): only
/// its exit status is left to give, and under `--json` its object, with the results that did come through.
package struct ReportedFailure: Error {
    package var message: String
    package var exit: ShelfExit
    /// The command's usual JSON for the part that worked, under a key of the error object.
    package var partial: (key: String, json: Data)?

    /// The failure and, encoded as `Output.json` would print them, the results that came through.
    package init<Results: Encodable>(message: String, exit: ShelfExit, partial key: String, _ results: Results) {
        self.message = message
        self.exit = exit
        partial = (try? Output.encoder.encode(results)).map { (key, $0) }
    }
}

/// Runs a command body: a `ShelfFailure` becomes one line on stderr (and a JSON object under `--json`) and its
/// exit status.
package func withFailureHandling<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch {
        throw reported(error)
    }
}

/// The async form of `withFailureHandling`.
package func withFailureHandling<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch {
        throw reported(error)
    }
}

/// Reports a failure the way shelf(1) says, and returns the exit status to end with; other errors pass through.
private func reported(_ error: any Error) -> any Error {
    switch error {
    case let failure as ShelfFailure:
        FailureReport.report(failure.description, exit: failure.exitCode.rawValue)
        return ArgumentParser.ExitCode(failure.exitCode.rawValue)
    case let failure as ReportedFailure:
        if FailureReport.jsonRequested() {
            FailureReport.printObject(failure.message, exit: failure.exit.rawValue, partial: failure.partial)
        }
        return ArgumentParser.ExitCode(failure.exit.rawValue)
    default:
        return error
    }
}
