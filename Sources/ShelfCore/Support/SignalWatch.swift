import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The signals that end a listening session or a download (interrupt, terminate, hang-up), caught so the
/// position is saved or the title put back first, and the window-size change that asks for a redraw.
public final class SignalWatch: Sendable {
    private struct Caught {
        var ending: Int32?
        var resized = false
    }

    private let caught = Mutex(Caught())
    /// Kept so the sources live as long as the watch.
    private let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Starts catching the signals; they no longer end the process by themselves.
    public init() {
        // A parent may have started shelf with these blocked (the mask survives exec); they must get through.
        var wanted = sigset_t()
        sigemptyset(&wanted)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] { sigaddset(&wanted, number) }
        pthread_sigmask(SIG_UNBLOCK, &wanted, nil)
        for number in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] {
            signal(number, SIG_IGN)
            // Made inside the lock, so the source belongs to the list from the start.
            sources.withLock { sources in
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { @Sendable [weak self] in
                    self?.caught.withLock { caught in
                        if number == SIGWINCH { caught.resized = true } else if caught.ending == nil { caught.ending = number }
                    }
                }
                source.resume()
                sources.append(source)
            }
        }
        // A sound server or terminal that goes away must not kill the process before it saves.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Gives the signals back their default action, so a command that watched them for one step (a sync's
    /// downloads) can still be stopped by Ctrl-C in the next.
    deinit {
        sources.withLock { sources in for source in sources { source.cancel() } }
        for number in [SIGINT, SIGTERM, SIGHUP, SIGWINCH] { signal(number, SIG_DFL) }
    }

    /// The first ending signal caught, if any.
    public var ending: Int32? { caught.withLock { $0.ending } }

    /// Whether the window changed size since the last call.
    public func takeResize() -> Bool {
        caught.withLock { caught in
            defer { caught.resized = false }
            return caught.resized
        }
    }
}
