import Foundation

/// The works the demo library offers, in crawl order: either the built-in catalog (`builtInJSON`) or a large
/// synthetic one generated on demand.
public struct DemoCatalog: Sendable {
    /// A position holds either a synthetic work (made from its number when needed, so a catalog of
    /// 100 000 works costs 100 000 small values) or an explicit one (built in, added or edited).
    enum Slot: Sendable {
        case synthetic(Int)
        case explicit(Box)
    }

    /// Keeps `Slot` one word wide.
    final class Box: Sendable {
        let title: DemoTitle
        init(_ title: DemoTitle) { self.title = title }
    }

    private(set) var slots: [Slot]

    /// A catalog of the given titles, in that order.
    public init(titles: [DemoTitle]) {
        slots = titles.map { .explicit(Box($0)) }
    }

    /// A deterministic synthetic catalog of `count` Palace-style works of about 2 KB of markup each.
    public static func generated(count: Int) -> DemoCatalog {
        var catalog = DemoCatalog(titles: [])
        catalog.slots = (0..<max(0, count)).map { .synthetic($0) }
        return catalog
    }

    /// Adds `count` synthetic works after the ones already here.
    mutating func appendGenerated(count: Int) {
        slots += (0..<max(0, count)).map { .synthetic($0) }
    }

    /// The built-in catalog: public-domain audiobooks in the LibriVox style and a few ebooks.
    public static func builtIn() throws -> DemoCatalog {
        try DemoCatalog(titles: load(from: Data(builtInJSON.utf8)))
    }

    /// Decodes a JSON array of titles in the `builtInJSON` format.
    public static func load(from data: Data) throws -> [DemoTitle] {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode([DemoTitle].self, from: data)
        } catch {
            throw DemoLibraryError.catalogUnreadable(String(describing: error))
        }
    }

    /// Number of works.
    public var count: Int { slots.count }

    /// The work at a crawl position.
    public subscript(position: Int) -> DemoTitle {
        switch slots[position] {
        case .synthetic(let number): SyntheticTitles.title(number: number)
        case .explicit(let box): box.title
        }
    }

    /// Every work, in crawl order (materialises synthetic works: mind the size).
    public var titles: [DemoTitle] { (0..<count).map { self[$0] } }

    /// The crawl position of the work with this id.
    public func position(of id: String) -> Int? {
        if let number = SyntheticTitles.number(fromID: id) {
            // Synthetic works stay near their number unless works were removed before them.
            let guess = min(number, slots.count - 1)
            if guess >= 0 {
                for position in stride(from: guess, through: 0, by: -1) where matches(position, id) {
                    return position
                }
            }
        }
        return slots.indices.first { matches($0, id) }
    }

    /// The work with this id.
    public func title(id: String) -> DemoTitle? {
        position(of: id).map { self[$0] }
    }

    private func matches(_ position: Int, _ id: String) -> Bool {
        switch slots[position] {
        case .synthetic(let number): SyntheticTitles.id(number: number) == id
        case .explicit(let box): box.title.id == id
        }
    }

    mutating func replace(at position: Int, with title: DemoTitle) {
        slots[position] = .explicit(Box(title))
    }

    mutating func insert(_ title: DemoTitle, at position: Int) {
        slots.insert(.explicit(Box(title)), at: position)
    }

    mutating func remove(at position: Int) {
        slots.remove(at: position)
    }
}
