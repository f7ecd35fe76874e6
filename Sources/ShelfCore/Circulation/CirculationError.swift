import Foundation

/// Why signing in, borrowing, reserving or returning did not work.
public enum CirculationError: ShelfFailure, Equatable {
    case notSignedIn(library: String)
    /// The library answered 401 to a request that carried the patron's sign-in (kept: one refusal may be the
    /// server's, not the credentials').
    case signInRefused(library: String)
    case credentialsRejected(library: String)
    case loginRejected(library: String)
    /// The library answers 401 with a challenge (HTTP Basic or Digest, or its authentication document) and
    /// the patron has not signed in; `how` names the challenge.
    case signInNeeded(library: String, how: String)
    /// A plain HTTP sign-in's user name and password, refused by the server at `shelf login`.
    case passwordRefused(library: String)
    /// Stored HTTP Basic or Digest credentials the server no longer accepts; they were erased.
    case passwordRejected(library: String)
    case unsupportedAuth(library: String, types: [String])
    case malformedAuthDocument(url: String, reason: String)
    /// The authentication document the catalog links to does not come (`shelf login` is what fetches it).
    case authDocumentUnavailable(url: String, status: Int)
    /// The token a card-and-PIN sign-in exchanges for is missing or unusable in the library's answer.
    case malformedTokenResponse(url: String, reason: String)
    /// The library's authentication document (where it is, not known here) lacks what signing in needs.
    case authDocumentLacks(library: String, what: String)
    case noAuthDocument(library: String)
    case noTerminal(what: String)
    case loanLimit(String)
    case holdLimit(String)
    case alreadyHave(String)
    case serverNotFound(String)
    case refused(status: Int, reason: String)
    case notAnEntry(url: String, reason: String)
    case cannotBorrow(title: String, reason: String)
    case cannotReserve(title: String, reason: String)
    case cannotReturn(title: String, reason: String)
    /// Borrowing or reserving a title already on loan or on hold to the patron, as the store knows it.
    case alreadyOnShelf(verb: String, title: String, reason: String)
    case credentialsFile(path: String, reason: String)
    case confirmationNeeded(String)
    /// Stored credentials given for another URL than the library's (`url`; nil when not known): never sent.
    case credentialsForAnotherURL(library: String, url: String?)
    /// A browser sign-in's token lapsed (or the library forgot it) and cannot be renewed without the patron: it was
    /// erased; `how` names the way in ("SAML, Riverside University").
    case signInLapsed(library: String, how: String)
    /// The browser sign-in came back refused: the identity provider's or library's error, or the patron cancelled.
    case browserSignInFailed(library: String, reason: String)
    /// Nothing came back from the browser in time, or the patron gave up.
    case browserSignInTimedOut(library: String, minutes: Int)
    /// What came back is not this sign-in's (a wrong or missing `state`, another document's `id`).
    case browserSignInMismatch(library: String, reason: String)
    /// `--method` or `--idp` names nothing the library offers.
    case noSuchMethod(library: String, asked: String, offered: [String])
    /// The sign-in's secrets are in the desktop keyring, which cannot be read now (locked, not running).
    case keyringUnavailable(library: String, reason: String)
    /// The file says the secrets are in the keyring, and the keyring has none for it (removed there).
    case keyringLost(library: String)

    public var exitCode: ShelfExit {
        switch self {
        case .notSignedIn, .signInRefused, .credentialsRejected, .loginRejected, .passwordRefused, .passwordRejected,
            .credentialsForAnotherURL: .notPermitted
        case .signInNeeded: .needsSignIn
        case .unsupportedAuth: .unsupportedAuth
        case .malformedAuthDocument, .authDocumentLacks, .notAnEntry, .malformedTokenResponse: .badData
        case .authDocumentUnavailable(_, let status): status >= 500 ? .serverError : .noSuchPage
        case .noAuthDocument: .nothingToSignIn
        case .noTerminal, .confirmationNeeded: .usage
        case .loanLimit: .loanLimit
        case .holdLimit: .holdLimit
        case .alreadyHave, .alreadyOnShelf: .alreadyHave
        case .serverNotFound: .serverNotFound
        case .refused: .serverError
        case .cannotBorrow, .cannotReserve, .cannotReturn: .notAllowed
        case .credentialsFile: .storeFailure
        case .signInLapsed: .needsSignIn
        case .browserSignInFailed, .browserSignInMismatch: .notPermitted
        case .browserSignInTimedOut: .needsSignIn
        case .noSuchMethod: .usage
        case .keyringUnavailable: .keyringUnavailable
        case .keyringLost: .notPermitted
        }
    }

    public var description: String {
        switch self {
        case .notSignedIn(let library): "not signed in to \(library): run `shelf login --library \(library)` first"
        case .signInRefused(let library):
            "\(library) refused your sign-in (401) although shelf sent it; run `shelf login \(library)` again"
        case .credentialsRejected(let library):
            "\(library) no longer accepts the stored card and PIN; they were erased: run `shelf login --library \(library)`"
        case .loginRejected(let library): "\(library) did not accept that card number and PIN; nothing was stored"
        case .signInNeeded(let library, let how): "the library asks you to sign in (\(how)); run `shelf login \(library)`"
        case .passwordRefused(let library):
            "\(library) did not accept that user name and password; nothing was stored"
        case .passwordRejected(let library):
            "\(library) no longer accepts the stored user name and password; they were erased: run `shelf login \(library)`"
        case .unsupportedAuth(let library, let types):
            "\(library) signs patrons in with \(types.map(AuthenticationDocument.displayName).joined(separator: ", ")), "
                + "which shelf cannot use (it signs in with a card and PIN, OAuth, SAML or OpenID Connect); tell the library"
        case .malformedAuthDocument(let url, let reason):
            "the library's authentication document at \(Redaction.url(url)) is malformed (\(reason)); try again later or tell the library"
        case .authDocumentUnavailable(let url, let status) where status >= 500:
            "the library's sign-in document \(Redaction.url(url)) answered \(status); try `shelf login` again later"
        case .authDocumentUnavailable(let url, let status):
            "the library's sign-in document \(Redaction.url(url)) answered \(status): its catalog links to a document it "
                + "does not serve; tell the library (`shelf sync` and `shelf login` again once it is mended)"
        case .malformedTokenResponse(let url, let reason):
            "the library's sign-in service \(Redaction.url(url)) sent no usable token (\(reason)); try `shelf login` "
                + "again later, or tell the library"
        case .authDocumentLacks(let library, let what):
            "\(library)'s authentication document \(what); shelf cannot sign in there: tell the library"
        case .noAuthDocument(let library):
            "\(library) does not ask for a sign-in: its catalog opens without one and links no authentication document"
        case .noTerminal(let what):
            "no terminal to ask for the \(what): use --password-stdin (the user name from SHELF_USERNAME, or as its first line)"
        case .loanLimit(let text):
            "loan limit reached: " + CirculationError.withoutAdvice(text, "return something first")
                + "; return one with `shelf return ID` first (`shelf loans` lists them)"
        case .holdLimit(let text):
            "hold limit reached: " + CirculationError.withoutAdvice(text, "cancel a hold first")
                + "; cancel one with `shelf return ID` first (`shelf holds` lists them)"
        case .alreadyHave(let text): "already yours: \(text); run `shelf sync` to see it"
        case .serverNotFound(let text): "the library does not know this title or loan: \(text); run `shelf sync`"
        case .refused(let status, let reason) where status >= 500 || status == 429:
            "the library refused (\(status)): \(reason); try again later"
        case .refused(let status, let reason):
            "the library refused (\(status)): \(reason); run `shelf sync`, then see the title with `shelf show ID`"
        case .notAnEntry(let url, let reason):
            "the library's answer from \(Redaction.url(url)) is not an OPDS entry (\(reason)); run `shelf sync` to see what happened"
        case .cannotBorrow(let title, let reason): "cannot borrow \(title): \(reason)"
        case .cannotReserve(let title, let reason): "cannot reserve \(title): \(reason)"
        case .cannotReturn(let title, let reason): "cannot return \(title): \(reason)"
        case .alreadyOnShelf(let verb, let title, let reason): "cannot \(verb) \(title): \(reason)"
        case .credentialsFile(let path, let reason): "credentials file \(path): \(reason)"
        case .confirmationNeeded(let what): "\(what): add --yes to confirm when there is no terminal to ask"
        case .signInLapsed(let library, let how):
            "your sign-in to \(library) (\(how)) has lapsed and was erased; run `shelf login \(library)` to sign in again"
        case .browserSignInFailed(let library, let reason):
            "\(library) did not sign you in: \(reason); nothing was stored: run `shelf login \(library)` to try again"
        case .browserSignInTimedOut(let library, let minutes):
            "no answer came back from the browser within \(minutes) minute\(minutes == 1 ? "" : "s"); nothing was stored: "
                + "run `shelf login \(library)` again (or paste the address the browser ended at)"
        case .browserSignInMismatch(let library, let reason):
            "the answer that came back is not this sign-in's (\(reason)); nothing was stored: run `shelf login \(library)` again"
        case .keyringUnavailable(let library, let reason):
            "the sign-in for \(library) is kept in the desktop keyring, which cannot be read: \(reason); unlock it and "
                + "try again, or `shelf login \(library)` to sign in anew"
        case .keyringLost(let library):
            "the desktop keyring no longer holds the sign-in for \(library); run `shelf login \(library)`"
        case .noSuchMethod(let library, let asked, let offered):
            "\(library) offers no sign-in \"\(asked)\"; it offers: \(offered.joined(separator: ", "))"
        case .credentialsForAnotherURL(let library, let url):
            "the sign-in stored for \(library) was given for "
                + (url.map { Redaction.url($0) } ?? "an earlier library of that name")
                + ", not for its URL now; it is not sent: run `shelf login \(library)` (or `shelf logout \(library)`)"
        }
    }
}

extension CirculationError {
    /// A 401 from the library: not signed in, or a sign-in it refused.
    static func unauthorised(_ library: String, signedIn: Bool) -> CirculationError {
        signedIn ? .signInRefused(library: library) : .notSignedIn(library: library)
    }

    /// A library's message without the advice shelf adds itself (and without a closing full stop), so the advice is
    /// said once: "you have reached your loan limit of 3; return something first." → "you have reached your loan
    /// limit of 3".
    static func withoutAdvice(_ text: String, _ advice: String) -> String {
        var text = text.trimmingCharacters(in: .whitespaces)
        while text.hasSuffix(".") { text.removeLast() }
        if let range = text.range(of: advice, options: [.caseInsensitive, .backwards]), range.upperBound == text.endIndex {
            text = String(text[..<range.lowerBound])
            while let last = text.last, [";", ",", ":", " ", "."].contains(last) { text.removeLast() }
        }
        return text
    }
}
