import Foundation

/// Why `shelf browse` or `shelf search` could not show what was asked.
public enum CatalogError: ShelfFailure, Equatable {
    /// A path segment names no item of the page it applies to.
    case noSuchItem(segment: String, at: String, count: Int)
    /// A title prefix matches more than one item.
    case ambiguousItem(segment: String, at: String, matches: [String])
    /// `--page N` beyond the feed's last page.
    case noSuchPage(page: Int, pages: Int, at: String)
    /// A URL on another host than the library's.
    case offHost(url: String, host: String)
    /// The library's catalog has no search link.
    case noSearch(library: String)
    /// The search link (or its OpenSearch description) cannot be used.
    case unusableSearch(reason: String)

    public var exitCode: ShelfExit {
        switch self {
        case .noSuchItem, .ambiguousItem, .noSuchPage, .offHost: .usage
        case .noSearch: .noSearch
        case .unusableSearch: .badData
        }
    }

    public var description: String {
        switch self {
        case .noSuchItem(let segment, let at, let count):
            count == 0
                ? "\(Self.place(at)) has nothing to go into, so '\(segment)' leads nowhere; see `\(Self.command(at))`"
                : "\(Self.place(at)) has no item '\(segment)' (items 1 to \(count), or the start of a title); "
                    + "see `\(Self.command(at))`"
        case .ambiguousItem(let segment, let at, let matches):
            "'\(segment)' matches \(matches.count) items of \(Self.place(at)) (\(matches.prefix(3).joined(separator: ", "))"
                + "\(matches.count > 3 ? ", …" : "")); give more of the title or its number"
        case .noSuchPage(let page, let pages, let at):
            "\(Self.place(at)) has \(pages) page\(pages == 1 ? "" : "s"), not \(page)"
        case .offHost(let url, let host):
            "\(Redaction.url(url)) is not on the library's host (\(host)); browse takes URLs of the library's own "
                + "catalog, so your sign-in and its titles stay with it (add another catalog with `shelf library add`)"
        case .noSearch(let library):
            "the library '\(library)' offers no search (its catalog has no search link); browse it with `shelf browse`"
        case .unusableSearch(let reason):
            "cannot search this library: \(reason)"
        }
    }

    /// `shelf browse 2/1`, or `shelf browse` for the root.
    private static func command(_ path: String) -> String { path.isEmpty ? "shelf browse" : "shelf browse \(path)" }

    /// "the catalog's start" for the root, else "browse path 2/1".
    private static func place(_ path: String) -> String {
        path.isEmpty ? "the catalog's start" : "browse path \(path)"
    }
}
