import Foundation
import ShelfCore
import Synchronization

/// The library's annotation client, which must never be used from two threads at once: every pull and push runs
/// on a thread of its own while it holds the client's lock, so they take turns and the player never waits on the
/// network except where it chooses to (`pull`'s and `pushAndWait`'s timeouts).
final class PositionChannel: Sendable {
    private let sync: Mutex<PositionSync>
    /// One-line warnings from the client, until the player takes them.
    private let warnings = Mutex<[String]>([])
    /// Whether a push is waiting for the client: a second one then has nothing to add, as the first sends
    /// everything queued when it starts.
    private let pushWaiting = Mutex(false)

    init(_ sync: PositionSync) {
        self.sync = Mutex(sync)
        self.sync.withLock { sync in
            sync.warn = { [weak self] warning in self?.warnings.withLock { $0.append(warning) } }
        }
    }

    /// Another device's newest position, after queued positions go first (so the server's newest is ours when
    /// it should be); nil when there is none or the library cannot say (`log` hears why).
    func pull(_ edition: EditionRef, log: (@Sendable (String) -> Void)?) -> Background<ListeningPosition?> {
        Background { [self] in
            sync.withLock { sync in
                sync.pushPending()
                do {
                    return try sync.remotePosition(of: edition)
                } catch {
                    log?("could not read positions from the library: \(error)")
                    return nil
                }
            }
        }
    }

    /// While playing: another device's newest position read before this device's queued one is pushed (the library
    /// keeps one position per patron and title, so pushing first would replace the other device's), then the push.
    func pullThenPush(_ edition: EditionRef, log: (@Sendable (String) -> Void)?) -> Background<ListeningPosition?> {
        Background { [self] in
            sync.withLock { sync in
                defer { sync.pushPending() }
                do {
                    return try sync.remotePosition(of: edition)
                } catch {
                    log?("could not read positions from the library: \(error)")
                    return nil
                }
            }
        }
    }

    /// Sends queued positions and bookmarks in the background.
    func push() {
        let start = pushWaiting.withLock { waiting in
            defer { waiting = true }
            return !waiting
        }
        guard start else { return }
        _ = Background { [self] in
            sync.withLock { sync in
                pushWaiting.withLock { $0 = false }
                sync.pushPending()
            }
        }
    }

    /// Sends queued positions and bookmarks, waiting up to `timeout` seconds; what is not sent stays queued.
    func pushAndWait(timeout: Double) {
        _ = Background { [self] in sync.withLock { _ = $0.pushPending() } }.wait(timeout: timeout)
    }

    /// The warnings since the last call.
    func takeWarnings() -> [String] {
        warnings.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
