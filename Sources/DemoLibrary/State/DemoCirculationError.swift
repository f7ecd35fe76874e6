import Foundation

/// Why the demo library refused to lend, hold or take back a work; each is a Palace problem document.
public enum DemoCirculationError: Error, LocalizedError, Equatable, Sendable {
    /// No patron has this username.
    case unknownPatron(String)
    /// No work has this id.
    case notFound(String)
    /// The work is open access or for sale: the library has no licenses to lend.
    case noLicenses(String)
    /// The work is a draft (`app:draft`), not yet lendable.
    case draft(String)
    /// The patron already has the work on loan.
    case loanAlreadyExists(String)
    /// The patron already waits for the work and no copy is set aside for them yet.
    case holdAlreadyExists(String)
    /// The patron has as many loans as the limit allows.
    case loanLimitReached(Int)
    /// The patron has as many holds as the limit allows.
    case holdLimitReached(Int)
    /// The patron has neither a loan nor a hold on the work.
    case noActiveLoan(String)

    /// The HTTP status of the problem document.
    public var status: Int {
        switch self {
        case .unknownPatron, .notFound, .noLicenses, .noActiveLoan: 404
        case .draft, .loanLimitReached, .holdLimitReached: 403
        case .loanAlreadyExists, .holdAlreadyExists: 400
        }
    }

    /// The problem document's `type`.
    public var problemType: String {
        let prefix = "http://librarysimplified.org/terms/problem/"
        return switch self {
        case .unknownPatron, .notFound: prefix + "not-found"
        case .noLicenses: prefix + "no-licenses"
        case .draft: prefix + "forbidden-by-policy"
        case .loanAlreadyExists: prefix + "loan-already-exists"
        case .holdAlreadyExists: prefix + "hold-already-exists"
        case .loanLimitReached: prefix + "loan-limit-reached"
        case .holdLimitReached: prefix + "hold-limit-reached"
        case .noActiveLoan: prefix + "no-active-loan"
        }
    }

    /// The problem document's `title`.
    public var title: String {
        switch self {
        case .unknownPatron, .notFound: "Not found"
        case .noLicenses: "No licenses."
        case .draft: "Forbidden by policy."
        case .loanAlreadyExists: "Already checked out"
        case .holdAlreadyExists: "Already on hold"
        case .loanLimitReached: "Loan limit reached."
        case .holdLimitReached: "Limit reached."
        case .noActiveLoan: "No active loan."
        }
    }

    /// A one-line, lower-case message saying what was wrong.
    public var errorDescription: String? {
        switch self {
        case .unknownPatron(let name): "no patron with the library card \(name)"
        case .notFound(let id): "no work with id \(id)"
        case .noLicenses(let id): "the library has no licenses to lend \(id); it is open access or for sale"
        case .draft(let id): "\(id) is a draft and cannot be borrowed yet"
        case .loanAlreadyExists(let id): "you already have \(id) on loan"
        case .holdAlreadyExists(let id): "you already have \(id) on hold"
        case .loanLimitReached(let limit): "you have reached your loan limit of \(limit); return something first"
        case .holdLimitReached(let limit): "you have reached your hold limit of \(limit); cancel a hold first"
        case .noActiveLoan(let id): "you have no loan or hold on \(id) to return"
        }
    }
}

/// What a borrow or return did.
public struct DemoCirculationResult: Codable, Sendable, Equatable {
    /// The work's id.
    public var titleID: String
    /// The patron's loan or hold on the work afterwards; `nil` after a return or cancel.
    public var item: DemoLoan?
    /// Whether a new loan or hold was made (HTTP 201).
    public var created: Bool

    /// Creates a result.
    public init(titleID: String, item: DemoLoan?, created: Bool) {
        self.titleID = titleID
        self.item = item
        self.created = created
    }
}
