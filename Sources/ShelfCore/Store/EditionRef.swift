/// An edition resolved once, at the command's edge, from what the patron typed: services take this rather than
/// the id string, so a title is looked up once per command.
public struct EditionRef: Sendable, Hashable, CustomStringConvertible {
    /// The library it belongs to (`library.id`).
    public let libraryID: Int64
    /// Its row in the catalog database.
    public let rowID: Int64
    /// Its Atom `id`, the edition's identity at the library.
    public let entryID: String

    public init(libraryID: Int64, rowID: Int64, entryID: String) {
        self.libraryID = libraryID
        self.rowID = rowID
        self.entryID = entryID
    }

    public var description: String { entryID }
}
