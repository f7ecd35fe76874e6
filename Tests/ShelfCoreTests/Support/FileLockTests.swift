import Foundation
import Testing
@testable import ShelfCore

@Suite(.timeLimit(.minutes(5))) struct FileLockTests {
    @Test func aSecondHolderWaitsThenGivesUp() throws {
        let test = TestHome()
        try test.home.prepare()
        let first = try #require(try FileLock.acquire(test.home.syncLock, timeout: 0))
        let started = Date()
        let second = try FileLock.acquire(test.home.syncLock, timeout: 0.3)
        #expect(second == nil)
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(FileLock.holder(of: test.home.syncLock) == getpid())
        withExtendedLifetime(first) {}
    }

    @Test func theLockIsFreeOnceReleased() throws {
        let test = TestHome()
        try test.home.prepare()
        var first = try FileLock.acquire(test.home.syncLock, timeout: 0)
        #expect(first != nil)
        first = nil
        #expect(try FileLock.acquire(test.home.syncLock, timeout: 0) != nil)
    }
}
