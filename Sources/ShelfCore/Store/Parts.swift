import Foundation
import GRDB

/// The state of one part, for `shelf show`.
public struct PartStatus: Codable, Sendable, Equatable {
    public var index: Int
    public var title: String?
    public var status: String
    public var bytes: Int64?
    public var expectedBytes: Int64?
    public var reason: String?
}

extension Store {
    /// The parts recorded for an edition, in order.
    public func parts(of rowID: Int64) throws(StoreError) -> [PartStatus] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM part WHERE edition_id = ? ORDER BY idx", arguments: [rowID]).map {
                PartStatus(index: $0["idx"], title: $0["title"], status: $0["status"], bytes: $0["bytes"],
                           expectedBytes: nil, reason: $0["reason"])
            }
        }
    }
}
