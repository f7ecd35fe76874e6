import Foundation

/// What `shelf bookmarks` prints: a title's bookmarks in book order, numbered from 1.
public struct BookmarkReport: Codable, Sendable, Equatable {
    /// One bookmark.
    public struct Entry: Codable, Sendable, Equatable {
        /// The number `shelf bookmarks ID --delete N` takes: the place in book order, from 1.
        public var number: Int
        /// Index into the reading order, from 0.
        public var part: Int
        public var partTitle: String?
        /// Seconds into the part.
        public var seconds: Double
        /// Seconds into the book, when the parts' durations are known.
        public var bookSeconds: Double?
        public var name: String?
        public var device: String
        /// "this computer (hostname)", the device's own name, or "another device".
        public var deviceName: String
        public var thisDevice: Bool
        /// The library has it (it was pushed or pulled).
        public var synced: Bool
        public var at: Date
    }

    public var id: String
    public var title: String
    /// Why only the bookmarks stored here are shown (offline, not signed in, no annotation service); nil when the
    /// library was asked.
    public var localOnly: String?
    public var bookmarks: [Entry]
}

/// What deleting a bookmark did.
public struct BookmarkDeletion: Sendable, Equatable {
    public var bookmark: BookmarkReport.Entry
    /// The library still has it: the DELETE waits for the next `shelf sync` or `shelf listen`, for this reason.
    public var pendingReason: String?
}

/// Why a bookmark cannot be found.
public struct BookmarkNotFound: ShelfFailure, Equatable {
    public var number: Int
    public var count: Int
    public var title: String

    public var exitCode: ShelfExit { .notFound }
    public var description: String {
        count == 0 ? "\(title) has no bookmarks; add one with b in shelf listen"
            : "\(title) has no bookmark \(number): its bookmarks are numbered 1 to \(count) (see shelf bookmarks)"
    }
}

extension PositionSync {
    /// A title's bookmarks, after asking the library for the other devices' when `pull` (a failure to reach it
    /// becomes `localOnly`, with the reason).
    public func bookmarkReport(of edition: EditionRef, pull: Bool = true) throws -> BookmarkReport {
        let localOnly = try pullForReport(edition, pull: pull)
        let book = try book(edition)
        let entries = try store.bookmarks(of: edition).enumerated().map { index, bookmark in
            BookmarkReport.Entry(
                number: index + 1, part: bookmark.part,
                partTitle: book.titles.indices.contains(bookmark.part) ? book.titles[bookmark.part] : nil,
                seconds: bookmark.seconds, bookSeconds: book.bookSeconds(part: bookmark.part, seconds: bookmark.seconds),
                name: bookmark.name, device: bookmark.device, deviceName: bookmark.deviceName ?? "another device",
                thisDevice: bookmark.thisDevice, synced: bookmark.serverID != nil, at: bookmark.at)
        }
        return BookmarkReport(id: book.entryID, title: book.title, localOnly: localOnly, bookmarks: entries)
    }

    /// Deletes bookmark `number` (in book order, from 1) and pushes the DELETE at once when the library has it;
    /// unreachable, the DELETE stays queued. Throws `BookmarkNotFound` for a number that is not there.
    public func deleteBookmark(number: Int, of edition: EditionRef) throws -> BookmarkDeletion {
        let bookmarks = try store.bookmarks(of: edition)
        guard bookmarks.indices.contains(number - 1) else {
            throw BookmarkNotFound(number: number, count: bookmarks.count, title: try book(edition).title)
        }
        let report = try bookmarkReport(of: edition, pull: false)
        let bookmark = bookmarks[number - 1]
        guard try store.deleteBookmark(bookmark.id) else {
            return BookmarkDeletion(bookmark: report.bookmarks[number - 1], pendingReason: nil)
        }
        let pushed = pushPending()
        let left = try store.bookmarkTombstones(of: library).contains { $0.id == bookmark.id }
        return BookmarkDeletion(bookmark: report.bookmarks[number - 1],
                                pendingReason: left ? pushed.failure ?? "the library could not be told" : nil)
    }

    /// DELETEs the library's tombstones: each one gone from the server (2xx, or 404: already gone) leaves the store;
    /// one the library refuses otherwise (4xx) is dropped with a warning; offline or failing, the rest stay.
    func pushTombstones(_ report: inout PushReport) {
        guard let tombstones = try? store.bookmarkTombstones(of: library), !tombstones.isEmpty else { return }
        for (index, tombstone) in tombstones.enumerated() {
            guard let url = URL(string: tombstone.serverID), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                session.isLibraryHost(url)
            else {
                // An id on another host is never sent a request (nor the patron's credentials).
                let warning = "dropped the deletion of a bookmark of \(tombstone.title): its id \(Redaction.url(tombstone.serverID)) "
                    + "is not on \(library.name)'s host"
                report.warnings.append(warning)
                warn?(warning)
                try? store.removeTombstone(tombstone.id)
                continue
            }
            guard session.isSignedIn else {
                report.pending += tombstones.count - index
                report.failure = CirculationError.notSignedIn(library: library.name).description
                return
            }
            let status: Int
            let body: Data
            do {
                let response = try session.send(url, method: "DELETE", headers: ["Accept": "application/json"])
                (status, body) = (response.status, response.body)
            } catch {
                report.pending += tombstones.count - index
                report.failure = (error as? ShelfFailure)?.description ?? "\(error)"
                return
            }
            if (200..<300).contains(status) || status == 404 || status == 410 {
                try? store.removeTombstone(tombstone.id)
                report.pushed += 1
            } else if status == 401 || status >= 500 || status == 408 || status == 429 {
                report.pending += tombstones.count - index
                report.failure = status == 401 ? CirculationError.notSignedIn(library: library.name).description
                    : NetworkError.httpStatus(url: Redaction.url(url.absoluteString), status: status).description
                return
            } else {
                let reason = ProblemDocument.parse(body)?.text ?? "\(status) \(HTTPStatus.reason(status))"
                let warning = "dropped the deletion of a bookmark of \(tombstone.title): \(library.name) refused it (\(reason))"
                report.warnings.append(warning)
                warn?(warning)
                try? store.removeTombstone(tombstone.id)
            }
        }
    }

    /// The id of the annotation a POST answered with, as an absolute URL (relative ids resolve against `url`).
    static func annotationID(in body: Data, from url: URL) -> String? {
        guard body.count < 1_048_576, InputLimit.jsonViolation(in: body) == nil,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let id = object["id"] as? String, !id.isEmpty, id.count < 2_048
        else { return nil }
        return URL(string: id, relativeTo: url)?.absoluteString ?? id
    }

    /// Whether an annotation collection says more pages follow (then it is not the complete list).
    static func hasNextPage(_ body: Data) -> Bool {
        guard InputLimit.jsonViolation(in: body) == nil,
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return false }
        if object["next"] != nil { return true }
        return (object["first"] as? [String: Any])?["next"] != nil
    }
}
