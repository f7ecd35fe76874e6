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

    /// Another device's newer place waiting for the patron's answer (an open offer), read before this device's
    /// queued positions are pushed: a push never replaces another device's newer position the patron has not
    /// answered (`PositionSync.pushPending`). Nil when there is none or the library cannot say (`log` hears why).
    func pull(_ edition: EditionRef, log: (@Sendable (String) -> Void)?) -> Background<ListeningPosition?> {
        Background { [self] in
            sync.withLock { sync in
                let offer: ListeningPosition?
                do {
                    offer = try sync.pull(edition)
                } catch {
                    log?("could not read positions from the library: \(error)")
                    return nil
                }
                sync.pushPending(pulled: [edition])
                return offer
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
