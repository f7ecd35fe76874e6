import DemoLibrary
import Foundation
import GRDB
import ShelfCore
import Testing

/// A damaged database, as a failing disk or a crash of the machine leaves one, met by the real binary: the damage
/// is named before anything reads through it, with the repair to run; the repair keeps the patron's libraries,
/// settings, sign-in, follows, positions and downloads; and a sync after it brings the catalog back to the server's.
@Suite(.serialized, .timeLimit(.minutes(5))) struct DamagedStoreCLITests {
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        /// The catalog's first 100 bytes (the header) overwritten.
        case header
        /// The catalog's page holding the titles' rows overwritten.
        case titlePage
        /// The catalog cut short by its last page.
        case truncated
        /// Garbage where the catalog's write-ahead log would be: SQLite ignores it, and nothing is lost.
        case walGarbage
        /// A page of an index of the positions database overwritten.
        case positionsPage
        /// The positions database's header overwritten.
        case positionsHeader
        /// The catalog database and its log deleted.
        case catalogDeleted

        var testDescription: String { rawValue }
        var file: String { rawValue.hasPrefix("positions") ? "positions.sqlite" : "shelf.sqlite" }
    }

    /// What the patron has, as the commands show it.
    struct Snapshot: Equatable {
        var libraries: String
        var titles: String
        var position: String
        var following: String
    }

    private func snapshot(_ shelf: ShelfRunner) async throws -> Snapshot {
        let libraries = try await shelf.run(["library", "list", "--json"])
        let titles = try await shelf.run(["list", "--json"])
        let position = try await shelf.run(["position", "7d3c0002", "--json"])
        let following = try await shelf.run(["following"])
        for result in [libraries, titles, position, following] { #expect(result.status == 0, "\(result.stderr)") }
        // The libraries as the patron set them up (when they last synced differs, of course).
        let setUp = try #require(try JSONSerialization.jsonObject(with: Data(libraries.stdout.utf8)) as? [[String: Any]])
            .map { $0.filter { !$0.key.hasPrefix("lastSync") } }
        #expect(setUp.first?["keepFinished"] as? Int == 3, "\(libraries.stdout)")
        let settings = String(decoding: try JSONSerialization.data(withJSONObject: setUp, options: [.sortedKeys]), as: UTF8.self)
        return Snapshot(libraries: settings, titles: titles.stdout, position: position.stdout, following: following.stdout)
    }

    /// The page a table or index starts at, and the page size, read from the intact file.
    private func rootPage(of name: String, in file: URL) throws -> (page: Int, size: Int) {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: file.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let page = try #require(try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_schema WHERE name = ?", arguments: [name]))
            let size = try #require(try Int.fetchOne(db, sql: "PRAGMA page_size"))
            return (page, size)
        }
    }

    private func overwrite(_ file: URL, at offset: Int, count: Int) throws {
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        // Not random: the same garbage each run.
        try handle.write(contentsOf: Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ 13) }))
    }

    private func damage(_ damage: Damage, home: URL) throws {
        let catalog = home.appendingPathComponent("shelf.sqlite")
        let positions = home.appendingPathComponent("positions.sqlite")
        switch damage {
        case .header: try overwrite(catalog, at: 0, count: 100)
        case .titlePage:
            let (page, size) = try rootPage(of: "edition", in: catalog)
            try overwrite(catalog, at: (page - 1) * size, count: size)
        case .truncated:
            let (_, size) = try rootPage(of: "edition", in: catalog)
            let length = try #require(try FileManager.default.attributesOfItem(atPath: catalog.path)[.size] as? Int)
            try FileHandle(forWritingTo: catalog).truncate(atOffset: UInt64(length - size))
        case .walGarbage:
            #expect(!FileManager.default.fileExists(atPath: catalog.path + "-wal"))
            try Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).write(to: URL(fileURLWithPath: catalog.path + "-wal"))
        case .positionsPage:
            let (page, size) = try rootPage(of: "annotation_outbox_library", in: positions)
            try overwrite(positions, at: (page - 1) * size, count: size)
        case .positionsHeader: try overwrite(positions, at: 0, count: 100)
        case .catalogDeleted:
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: catalog.path + suffix) }
            #expect(!FileManager.default.fileExists(atPath: catalog.path))
        }
    }

    @Test(arguments: Damage.allCases)
    func eachDamageIsNamedAndTheRepairItAdvisesKeepsThePatronsData(_ damage: Damage) async throws {
        let fixture = try await CLIFixture.withSherlockDownloaded()
        defer { Task { await fixture.finish() } }
        let shelf = fixture.shelf
        // The patron's own: a setting, a follow, a position not yet sent to the library.
        #expect(try await shelf.run(["library", "set", "demo", "--keep", "3"]).status == 0)
        #expect(try await shelf.run(["follow", "author", "Arthur Conan Doyle"]).status == 0)
        try Self.play(home: shelf.home)
        let before = try await snapshot(shelf)
        #expect(before.position.contains("\"pendingPush\" : true") || before.position.contains("\"pendingPush\":true"), "\(before.position)")

        try self.damage(damage, home: shelf.home)
        let met = try await shelf.run(["list"])
        if damage == .walGarbage {
            // Not damage at all: SQLite reads past a log whose header does not check.
            #expect(met.status == 0, "\(met.stderr)")
            #expect(try await snapshot(shelf) == before)
            let repair = try await shelf.run(["doctor", "--repair"], environment: ["SDL_AUDIODRIVER": "dummy"])
            #expect(repair.stdout.contains("repair: nothing to repair"), "\(repair.stdout)")
            return
        }
        if damage == .catalogDeleted {
            // Nothing to repair: the patron's rows come back from their copy as the store opens, said once.
            #expect(met.status == 0, "\(met.stderr)")
            #expect(met.stderr == "shelf: note: the catalog database \(shelf.home.appendingPathComponent("shelf.sqlite").path) was "
                + "missing; 1 library and their settings came back from libraries.json: `shelf sync` fetches their catalogs\n")
            #expect(try await shelf.run(["list"]).stderr.isEmpty)
            let sync = try await shelf.run(["sync"])
            #expect(sync.status == 0, "\(sync.stderr)")
            // The downloaded files were kept under the title's id: downloading again finds them whole.
            let download = try await shelf.run(["download", "7d3c0002"])
            #expect(download.status == 0, "\(download.stderr)")
            let after = try await snapshot(shelf)
            #expect(after.libraries == before.libraries)
            #expect(after.following == before.following)
            #expect(after.titles == before.titles)
            #expect(after.position == before.position.replacingOccurrences(of: "\"pendingPush\" : true", with: "\"pendingPush\" : false"),
                    "\(before.position)\n\(after.position)")
            return
        }
        // Named before anything is read through it: the file, and the repair.
        let path = shelf.home.appendingPathComponent(damage.file).path
        #expect(met.status == ShelfExit.storeFailure.rawValue, "\(met.stderr)")
        #expect(met.stderr.split(separator: "\n").count == 1, "\(met.stderr)")
        #expect(met.stderr.contains("\(path) is damaged"), "\(met.stderr)")
        #expect(met.stderr.contains("run `shelf doctor --repair`"), "\(met.stderr)")
        #expect(met.stdout.isEmpty)

        // The advice, followed: the repair, then a sync.
        let repair = try await shelf.run(["doctor", "--repair"], environment: ["SDL_AUDIODRIVER": "dummy"])
        #expect(repair.stdout.contains("repair: \(damage.file) rebuilt from what could be read"), "\(repair.stdout)\(repair.stderr)")
        #expect(repair.stdout.contains("passes integrity_check"), "\(repair.stdout)")
        #expect(!repair.stdout.contains("is damaged"), "\(repair.stdout)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: shelf.home.path)
            .filter { $0.hasPrefix("\(damage.file).damaged-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        #expect(aside.count == 1, "the damaged file is kept aside: \(aside)")
        let sync = try await shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")

        let after = try await snapshot(shelf)
        #expect(after.libraries == before.libraries)
        #expect(after.following == before.following)
        // The position outlived the damage, and the sync sent it on to the library.
        #expect(after.position == before.position.replacingOccurrences(of: "\"pendingPush\" : true", with: "\"pendingPush\" : false"),
                "\(before.position)\n\(after.position)")
        let sent = await fixture.server.state.annotations(for: "demo", workID: "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002")
        #expect(sent.map(\.offsetMilliseconds) == [2_000])
        if damage == .truncated {
            // The last page may have held any table's rows: the titles are the server's again, whatever their state.
            #expect(Self.titles(after.titles) == Self.titles(before.titles))
        } else {
            #expect(after.titles == before.titles)
        }
        // The sign-in was never touched: the loans are there without a login.
        let loans = try await shelf.run(["loans"])
        #expect(loans.status == 0 && loans.stdout.contains("Sherlock"), "\(loans.stdout)\(loans.stderr)")
        // And the store is sound for every command after.
        let doctor = try await shelf.run(["doctor", "--json"], environment: ["SDL_AUDIODRIVER": "dummy"])
        #expect(!doctor.stdout.contains("damaged") && !doctor.stderr.contains("damaged"), "\(doctor.stdout)")
    }

    /// Saves a position as the player does, and closes the store (its last connection folds the log in).
    private static func play(home: URL) throws {
        let store = try Store(home: Home(directory: home))
        let sherlock = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        try store.savePosition(
            ListeningPosition(part: 1, seconds: 2, readingOrderItem: "2.mp3", device: try store.deviceID(), deviceName: nil, at: Date()),
            of: sherlock, percent: 43, finished: false)
    }

    /// The ids and titles of `list --json`.
    private static func titles(_ json: String) -> [String] {
        let rows = (try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]]) ?? []
        return rows.map { "\($0["id"] ?? "") \($0["title"] ?? "")" }.sorted()
    }
}
