import DemoLibrary
import Foundation
import ShelfCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A crash signal another process sends to a running shelf ends it with that signal: the Swift runtime's crash
/// reporter alone printed a backtrace and let a sync carry on to exit 0.
@Suite(.timeLimit(.minutes(5))) struct CrashSignalCLITests {
    @Test(arguments: [SIGSEGV, SIGABRT, SIGBUS])
    func aCrashSignalFromOutsideEndsASyncWithThatSignalAndChangesNothing(_ signal: Int32) async throws {
        let fixture = try await CLIFixture()
        // The sync is held at the library's door: it is surely running when the signal comes.
        await fixture.server.state.closeGate(for: "/crawlable")
        let (sync, out, errors) = try fixture.shelf.start(["sync", "--no-download"])
        let ended = Background {
            let printed = out.fileHandleForReading.readDataToEndOfFile() + errors.fileHandleForReading.readDataToEndOfFile()
            sync.waitUntilExit()
            return (sync.terminationReason, sync.terminationStatus, String(decoding: printed, as: UTF8.self))
        }
        await fixture.server.state.untilHeld(1)
        #expect(kill(sync.processIdentifier, signal) == 0)
        // It ends while still held (before this, it carried on once the door opened, and finished the sync).
        #expect(try await eventually { !sync.isRunning }, "still running after the signal")
        await fixture.server.state.openGate()
        let (reason, status, printed) = try await offloaded { try ended.value() }
        #expect(reason == .uncaughtSignal && status == signal, "\(reason) \(status): \(printed)")
        #expect(!printed.contains("new,"), "the sync carried on: \(printed)")
        let store = try Store(home: Home(directory: fixture.shelf.home))
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM edition") } == 0)
        await fixture.finish()
    }
}
