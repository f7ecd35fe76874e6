import Foundation
import Testing

@testable import ShelfCore

/// `libraries.json`, the copy of the patron's rows, read back into a new catalog database.
@Suite struct PatronMirrorTests {
    /// A copy written before a column existed (here `notify` and `crawl_depth` taken out of it, as a copy from an
    /// older shelf lacks a newer setting) still brings its library back, the missing settings at their defaults, and
    /// a value no column holds any more is passed over.
    @Test func aCopyFromBeforeAColumnExistedStillBringsItsLibraryBack() throws {
        let test = TestHome()
        do {
            let store = try test.store()
            _ = try store.addLibrary(name: "kept", url: URL(string: "http://127.0.0.1:1/")!)
            _ = try store.setDownloadPolicy(name: "kept", policy: .all, keep: 3, maxBytes: nil, notify: true)
        }
        let file = test.home.libraryMirror
        var root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var libraries = try #require(root["libraries"] as? [[String: Any]])
        var values = try #require(libraries.first?["values"] as? [String: Any])
        #expect(values["notify"] != nil && values["crawl_depth"] != nil, "\(values)")
        values["notify"] = nil
        values["crawl_depth"] = nil
        values["a_column_gone"] = 1
        libraries[0]["values"] = values
        root["libraries"] = libraries
        try JSONSerialization.data(withJSONObject: root).write(to: file)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: test.home.database.path + suffix)
        }

        let store = try test.store()
        #expect(store.restoredLibraries == 1)
        let library = try store.library(named: "kept")
        #expect(library.autoDownload == .all && library.keepFinished == 3)
        #expect(library.notify == false)
        #expect(library.crawlBounds == CrawlBounds.standard)
    }
}

extension PatronMirrorTests {
    /// The patron's position-sync switch is a setting of the library's: the copy keeps it, and a lost catalog
    /// database brings it back (its change marks the copy behind, migration v22's trigger).
    @Test func thePositionSyncSwitchComesBackWithItsLibrary() throws {
        let test = TestHome()
        do {
            let store = try test.store()
            _ = try store.addLibrary(name: "kept", url: URL(string: "http://127.0.0.1:1/")!)
            _ = try store.setSyncPositions(name: "kept", false)
        }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: test.home.database.path + suffix)
        }
        let store = try test.store()
        #expect(store.restoredLibraries == 1)
        let library = try store.library(named: "kept")
        #expect(library.syncPositions == false && !library.positionsSynced)
    }
}
