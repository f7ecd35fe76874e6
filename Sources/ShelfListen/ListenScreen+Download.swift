import Foundation
import ShelfCore

/// The player's status while the title downloads.
extension ListenScreen {
    /// "waiting for part 6 (40%)" while the player waits for that part; otherwise how many parts are on disk, with
    /// the progress of the first still downloading; nil once every part is.
    static func downloadStatus(book: Audiobook, downloading: Bool, waitingFor: Int?) -> String? {
        if let part = waitingFor, book.parts.indices.contains(part) {
            return "waiting for part \(part + 1)" + (book.parts[part].progress.map { " (\($0))" } ?? "")
        }
        let present = book.parts.filter { FileManager.default.fileExists(atPath: $0.file.path) }.count
        guard present < book.parts.count || downloading else { return nil }
        let active = book.parts.first { $0.progress != nil }
        return "parts \(present)/\(book.parts.count) downloaded" + (active.map { " (part \($0.index + 1): \($0.progress ?? ""))" } ?? "")
    }
}
