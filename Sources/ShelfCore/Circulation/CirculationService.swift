import Foundation
import GRDB

/// What a borrow, reserve or return did, for the one-line report and `--json`.
public struct CirculationOutcome: Codable, Sendable, Equatable {
    public enum Result: String, Codable, Sendable {
        case borrowed, reserved, returned, cancelled
    }

    public var result: Result
    public var id: String
    public var title: String
    public var until: Date?
    public var position: Int?
    public var copies: Int?
    /// "Borrowed Moby Dick. Due Dec 12 (21 days)."
    public var message: String
}

/// Borrows, reserves and returns titles through the links the library's entries carry.
public final class CirculationService {
    private let store: Store
    private let home: Home
    private let library: Library
    private let session: LibrarySession
    private let now: () -> Date

    public init(
        store: Store, home: Home, library: Library, configuration: HTTPConfiguration,
        credentialWarning: (@Sendable (String) -> Void)? = nil, now: @escaping () -> Date = Date.init
    ) throws(CirculationError) {
        self.store = store
        self.home = home
        self.library = library
        self.now = now
        session = try LibrarySession(
            library: library, credentialStore: CredentialStore(home: home, warn: credentialWarning),
            configuration: configuration)
    }

    // MARK: borrow and reserve

    /// Borrows a title that has a copy free (or a hold that is ready).
    public func borrow(_ edition: EditionRef) throws -> CirculationOutcome {
        let detail = try store.edition(edition, now: now())
        let summary = detail.summary
        guard summary.actions.contains(.borrow) else {
            if [.loan, .hold].contains(summary.entitlement) {
                throw CirculationError.alreadyOnShelf(verb: "borrow", title: summary.title, reason: whyNotBorrow(summary))
            }
            throw CirculationError.cannotBorrow(title: summary.title, reason: whyNotBorrow(summary))
        }
        return try acquire(detail)
    }

    /// Places a hold on a title with no copy free.
    public func reserve(_ edition: EditionRef) throws -> CirculationOutcome {
        let detail = try store.edition(edition, now: now())
        let summary = detail.summary
        guard summary.actions.contains(.reserve) else {
            let reason: String
            switch summary.entitlement {
            case .hold: reason = "it is already on hold for you" + (summary.holdsPosition.map { " (#\($0) in line)" } ?? "")
            case .holdReady: reason = "your hold is ready: shelf borrow \(summary.shortID)"
            case .loan: reason = "it is already on loan to you"
            case .free: reason = "it is open access: there is no need to reserve it"
            case .none:
                reason = summary.actions.contains(.borrow)
                    ? "a copy is free now: shelf borrow \(summary.shortID)" : whyNotBorrow(summary)
            }
            if [.loan, .hold, .holdReady].contains(summary.entitlement) {
                throw CirculationError.alreadyOnShelf(verb: "reserve", title: summary.title, reason: reason)
            }
            throw CirculationError.cannotReserve(title: summary.title, reason: reason)
        }
        return try acquire(detail, reserving: true)
    }

    private func whyNotBorrow(_ summary: EditionSummary) -> String {
        switch summary.entitlement {
        case .loan: return "it is already on loan to you"
        case .hold: return "it is on hold for you" + (summary.holdsPosition.map { " (#\($0) in line)" } ?? "")
            + "; `shelf sync` tells you when it is ready"
        case .free: return "it is open access: nothing to borrow"
        case .holdReady, .none: break
        }
        if summary.isDraft { return "it is not published yet" }
        if summary.actions.contains(.reserve) { return "no copy is free now: shelf reserve \(summary.shortID)" }
        if summary.isPaid { return "it is for sale, not for loan" }
        if !summary.inCatalog { return "it is no longer in the catalog" }
        return "the library offers no way to borrow it"
    }

    /// Follows the entry's borrow link (which places a hold when no copy is free) and records the answer.
    private func acquire(_ detail: EditionDetail, reserving: Bool = false) throws -> CirculationOutcome {
        guard session.isSignedIn else { throw CirculationError.notSignedIn(library: library.name) }
        guard let href = detail.acquisitions.first(where: { $0.kind == AcquisitionKind.borrow.rawValue })?.href,
            let url = URL(string: href)
        else {
            throw reserving
                ? CirculationError.cannotReserve(title: detail.summary.title, reason: "the library offers no link to place a hold")
                : CirculationError.cannotBorrow(title: detail.summary.title, reason: "the library offers no borrow link")
        }
        let response = try call(url)
        let entry = try entry(from: response, url: url)
        let record = EntryRecord(entry)
        try store.write { db in
            let applier = try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: now())
            let loans = try LoanApplier(db: db, libraryID: library.id, syncID: nil, now: now(), applier: applier)
            try loans.apply(record)
            try applier.finish()
        }
        let title = detail.summary.title
        let availability = record.availability
        switch record.entitlement {
        case .hold:
            let position = record.holds?.position
            let copies = record.copies?.total
            var message = "Reserved \(title)."
            if let position {
                message += " #\(position) in line"
                if let copies { message += " for \(copies) cop\(copies == 1 ? "y" : "ies")" }
                message += "."
            }
            return CirculationOutcome(
                result: .reserved, id: entry.id, title: title, until: availability?.until, position: position,
                copies: copies, message: message)
        case .holdReady:
            return CirculationOutcome(
                result: .reserved, id: entry.id, title: title, until: availability?.until, position: nil, copies: nil,
                message: "Reserved \(title). A copy is waiting: shelf borrow \(detail.summary.shortID).")
        case .loan, .free, .none:
            var message = "Borrowed \(title)."
            if let until = availability?.until {
                let days = Int((until.timeIntervalSince(now()) / 86_400).rounded())
                message += " Due \(Circulation.shortDate(until)) (\(days) day\(days == 1 ? "" : "s"))."
            }
            return CirculationOutcome(
                result: .borrowed, id: entry.id, title: title, until: availability?.until, position: nil,
                copies: nil, message: message)
        }
    }

    // MARK: return

    /// Returns a loan, or cancels a hold, through the entry's revoke link.
    /// Refuses (`PlayingError.playing`) while `shelf listen` plays the title, unless `force`.
    public func returnTitle(_ edition: EditionRef, force: Bool = false) throws -> CirculationOutcome {
        let title = try store.edition(edition, now: now()).summary.title
        return try PlayingLock.whileNotPlaying(
            home: home, library: library.id, edition: edition.rowID, title: title, action: .return, force: force
        ) { try returnLoan(edition) }
    }

    private func returnLoan(_ edition: EditionRef) throws -> CirculationOutcome {
        let detail = try store.edition(edition, now: now())
        let summary = detail.summary
        guard [.loan, .hold, .holdReady].contains(summary.entitlement) else {
            let reason = summary.entitlement == .free
                ? "it is open access, free to everyone: there is no loan to return (`shelf archive \(summary.shortID)` "
                    + "removes its files)"
                : "it is not on loan or on hold to you"
            throw CirculationError.cannotReturn(title: summary.title, reason: reason)
        }
        guard let href = summary.revokeURL ?? detail.revokeURL, let url = URL(string: href) else {
            throw CirculationError.cannotReturn(
                title: summary.title,
                reason: "the library gave no way to return it (no revoke link); return it in the library's own app")
        }
        guard session.isSignedIn else { throw CirculationError.notSignedIn(library: library.name) }
        let response = try call(url)
        // The answer is the entry as it stands now; a library that sends none has still taken the title back.
        let entry = try? FeedDocument(baseURL: url).parseEntry(data: response.body, contentType: response.header("content-type"))
        let wasLoan = summary.entitlement == .loan
        try store.write { db in
            let applier = try EntryApplier(db: db, libraryID: library.id, syncID: nil, now: now())
            let loans = try LoanApplier(db: db, libraryID: library.id, syncID: nil, now: now(), applier: applier)
            try loans.end(editionID: edition.rowID, reason: wasLoan ? "returned with shelf" : "hold cancelled with shelf")
            // The catalog's view of the copies changed too.
            if let entry, entry.id == summary.id { try applier.refreshCopies(edition.rowID, from: entry) }
        }
        try LocalFiles(store: store, home: home).finishClearing(library)
        return CirculationOutcome(
            result: wasLoan ? .returned : .cancelled, id: summary.id, title: summary.title, until: nil, position: nil,
            copies: nil, message: wasLoan ? "Returned \(summary.title)." : "Cancelled your hold on \(summary.title).")
    }

    // MARK: requests

    /// GETs a circulation link (PUT when the server wants it), turning refusals into one clear error each.
    private func call(_ url: URL) throws -> HTTPResponse {
        let accept = ["Accept": "application/atom+xml;type=entry;profile=opds-catalog, application/atom+xml, application/api-problem+json"]
        var response = try session.send(url, headers: accept)
        if response.status == 405 {
            response = try session.send(url, method: "PUT", headers: accept, body: Data())
        }
        if (200..<300).contains(response.status) { return response }
        let problem = ProblemDocument.parse(response.body)
        let text = problem?.text ?? HTTPStatus.reason(response.status)
        switch problem?.type {
        // The library's own words once: its title ("Loan limit reached.") says what the message already begins with.
        case ProblemDocument.loanLimit?: throw CirculationError.loanLimit(problem?.detailLine ?? text)
        case ProblemDocument.holdLimit?: throw CirculationError.holdLimit(problem?.detailLine ?? text)
        case ProblemDocument.loanExists?, ProblemDocument.holdExists?: throw CirculationError.alreadyHave(text)
        case ProblemDocument.notFound?, ProblemDocument.noActiveLoan?: throw CirculationError.serverNotFound(text)
        default:
            if response.status == 401 { throw CirculationError.unauthorised(library.name, signedIn: session.isSignedIn) }
            if response.status == 404 { throw CirculationError.serverNotFound(text) }
            throw CirculationError.refused(status: response.status, reason: text)
        }
    }

    private func entry(from response: HTTPResponse, url: URL) throws -> OPDSEntry {
        if response.isHTML {
            throw CirculationError.notAnEntry(url: url.absoluteString, reason: "an HTML page")
        }
        do {
            return try FeedDocument(baseURL: URL(string: response.url) ?? url)
                .parseEntry(data: response.body, contentType: response.header("content-type"))
        } catch let error as OPDSParseError {
            throw CirculationError.notAnEntry(url: url.absoluteString, reason: FeedError.parse(error).description)
        }
    }
}
