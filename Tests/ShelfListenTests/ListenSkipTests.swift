import Foundation
import Testing
@testable import ShelfCore
@testable import ShelfListen

/// `--skip` is kept in the positions database and used by the next session that does not give one.
@Suite(.timeLimit(.minutes(5))) struct ListenSkipTests {
    @Test func aSkipGivenIsKeptAndUsedNextTime() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-skip-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let home = Home(directory: directory)
        #expect(try ListenOptions.skip(asked: nil, store: try Store(home: home)) == 30)
        #expect(try ListenOptions.skip(asked: 10, store: try Store(home: home)) == 10)
        // Another session, another store on the same files.
        #expect(try ListenOptions.skip(asked: nil, store: try Store(home: home)) == 10)
        #expect(try ListenOptions.skip(asked: 90, store: try Store(home: home)) == 90)
        let store = try Store(home: home)
        #expect(try store.setting(ListenOptions.skipSetting) == "90.0")
        #expect(try ListenOptions.skip(asked: nil, store: store) == 90)
        // A kept value that makes no sense is the default.
        try store.setSetting(ListenOptions.skipSetting, to: "-4")
        #expect(try ListenOptions.skip(asked: nil, store: store) == 30)
        try store.setSetting(ListenOptions.skipSetting, to: "soon")
        #expect(try ListenOptions.skip(asked: nil, store: store) == 30)
        // This device's id is in the same table and untouched.
        let device = try store.deviceID()
        #expect(try store.setting("device_id") == device)
    }
}
