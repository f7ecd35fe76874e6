import Foundation
import GRDB
@testable import ShelfCore

/// A fresh shelf home in a temporary directory, removed when the test ends.
final class TestHome: @unchecked Sendable {
    let home: Home
    var directory: URL { home.directory }

    init() {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("shelf-test-\(UUID().uuidString)", isDirectory: true)
        home = Home(directory: directory)
    }

    func store() throws -> Store { try Store(home: home) }

    /// A catalog database migrated only up to `migration`, filled by `fill` as a shelf of that time would have
    /// written it, then opened as a Store (which migrates the rest of the way).
    func store(writtenAt migration: String, _ fill: (Database) throws -> Void) throws -> Store {
        try home.prepare()
        let queue = try DatabaseQueue(path: home.database.path)
        try Migrations.migrator.migrate(queue, upTo: migration)
        try queue.write(fill)
        try queue.close()
        return try store()
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The package root, found from this file's path.
enum PackageRoot {
    static let url: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.pathComponents.count > 1 {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("no Package.swift above \(#filePath)")
    }()
}
