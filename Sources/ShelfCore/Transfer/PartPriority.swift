import Foundation
import Synchronization

/// Which parts a download fetches first: the one a player needs and the next, ahead of the book order.
///
/// Shared between the player, which moves a part to the front when the patron jumps to it, and the downloader,
/// which reads it each time it picks its next part; parts already running are never restarted.
public final class PartPriority: Sendable {
    private let order = Mutex<[Int]>([])

    /// A priority with `first` (part indices) ahead of the rest.
    public init(first: [Int] = []) {
        order.withLock { $0 = Self.unique(first) }
    }

    /// Puts `parts`, in this order, ahead of every other part.
    public func prefer(_ parts: [Int]) {
        order.withLock { $0 = Self.unique(parts + $0) }
    }

    /// The parts asked for first, most wanted first.
    public var first: [Int] { order.withLock { $0 } }

    /// Where `part` stands: 0 for the most wanted; parts never asked for come after, in book order.
    func rank(_ part: Int) -> Int {
        order.withLock { $0.firstIndex(of: part) } ?? Int.max
    }

    private static func unique(_ parts: [Int]) -> [Int] {
        var seen = Set<Int>()
        return parts.filter { $0 >= 0 && seen.insert($0).inserted }
    }
}
