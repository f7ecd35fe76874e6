import Foundation

/// A patron's loan or place in a holds queue.
public struct DemoLoan: Codable, Sendable, Hashable {
    /// Whether the patron holds the work or waits for it.
    public enum Kind: String, Codable, Sendable, Hashable {
        case loan
        case hold
    }

    /// The work's id.
    public var titleID: String
    /// Loan or hold.
    public var kind: Kind
    /// When the loan or hold started.
    public var start: Date
    /// When the loan ends; for a waiting hold, when a copy is expected; for a ready hold, the
    /// deadline to borrow it.
    public var end: Date?
    /// Position in the holds queue (1 is next), for holds; 0 when a copy waits for the patron.
    public var position: Int?

    /// Creates a loan or hold.
    public init(titleID: String, kind: Kind, start: Date, end: Date? = nil, position: Int? = nil) {
        self.titleID = titleID
        self.kind = kind
        self.start = start
        self.end = end
        self.position = position
    }

    /// A hold whose copy is set aside for the patron, to borrow before `end`.
    public var isReady: Bool { kind == .hold && position == 0 }
}

/// A patron of the demo library: credentials plus the loans and holds on their shelf.
public struct DemoPatron: Sendable {
    /// HTTP Basic username (the library card barcode).
    public var username: String
    /// HTTP Basic password (the PIN).
    public var password: String
    /// Loans and holds, in shelf order.
    public var loans: [DemoLoan]

    /// Creates a patron with these credentials and loans.
    public init(username: String, password: String, loans: [DemoLoan] = []) {
        self.username = username
        self.password = password
        self.loans = loans
    }

    /// The starting shelf: an audiobook and an ebook on loan, and a hold on a work with no copies
    /// free, chosen from the catalog so both catalog modes have one.
    static func startingLoans(in catalog: DemoCatalog, now: Date) -> [DemoLoan] {
        var audiobook: String?
        var ebook: String?
        var held: String?
        for position in 0..<catalog.count {
            let title = catalog[position]
            guard !title.draft, title.price == nil, !title.license.openAccess else { continue }
            if title.license.copiesAvailable > 0 {
                if title.medium == .audiobook, audiobook == nil { audiobook = title.id }
                if title.medium == .ebook, ebook == nil { ebook = title.id }
            } else if held == nil {
                held = title.id
            }
            if audiobook != nil, ebook != nil, held != nil { break }
        }
        let start = DemoDates.wholeSeconds(now.addingTimeInterval(-3 * 86_400))
        let end = start.addingTimeInterval(21 * 86_400)
        var loans: [DemoLoan] = []
        if let audiobook { loans.append(DemoLoan(titleID: audiobook, kind: .loan, start: start, end: end)) }
        if let ebook { loans.append(DemoLoan(titleID: ebook, kind: .loan, start: start, end: end)) }
        if let held {
            loans.append(DemoLoan(titleID: held, kind: .hold, start: start, end: start.addingTimeInterval(180 * 86_400), position: 2))
        }
        return loans
    }
}
