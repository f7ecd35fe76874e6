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
        (.notPermitted, "not signed in, or the library refused the card and PIN"),
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
    ]

    static var text: String {
        rows.map { "  \($0.0.rawValue)  \($0.1)" }.joined(separator: "\n")
    }
}

/// Runs a command body: a `ShelfFailure` becomes one line on stderr and its exit status.
package func withFailureHandling<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let failure as ShelfFailure {
        Output.error("shelf: \(failure.description)")
        throw ArgumentParser.ExitCode(failure.exitCode.rawValue)
    } catch let error as Lifecycle.InvalidTransition {
        Output.error("shelf: \(error.description)")
        throw ArgumentParser.ExitCode(ShelfExit.usage.rawValue)
    }
}

/// The async form of `withFailureHandling`.
package func withFailureHandling<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let failure as ShelfFailure {
        Output.error("shelf: \(failure.description)")
        throw ArgumentParser.ExitCode(failure.exitCode.rawValue)
    }
}
