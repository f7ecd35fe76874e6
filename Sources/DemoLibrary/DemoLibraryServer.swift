import Foundation
import Hummingbird
import Logging
import Synchronization

/// A small Palace Project circulation manager on 127.0.0.1, for tests, `shelf demo` and benchmarks.
///
/// Start it, point a client at `baseURL`, and change what it serves through `state`.
public final class DemoLibraryServer: Sendable {
    /// The configuration the server was created with.
    public let configuration: DemoConfiguration
    /// The catalog, patrons, clock and fault switches; change them while the server runs.
    public let state: DemoState

    private enum Lifecycle {
        case idle
        case starting
        case running(GracefulRun, url: URL)
    }

    private let lifecycle = Mutex(Lifecycle.idle)
    private let loadError: DemoLibraryError?

    /// Creates a server; nothing listens until `start()`.
    public init(configuration: DemoConfiguration = .init()) {
        self.configuration = configuration
        var loadError: DemoLibraryError?
        let catalog: DemoCatalog
        if let count = configuration.generatedEntries, !configuration.keepsBuiltInTitles {
            catalog = .generated(count: count)
        } else {
            do {
                var builtIn = try DemoCatalog.builtIn()
                if let count = configuration.generatedEntries { builtIn.appendGenerated(count: count) }
                catalog = builtIn
            } catch {
                loadError = error as? DemoLibraryError ?? .catalogUnreadable(String(describing: error))
                catalog = DemoCatalog(titles: [])
            }
        }
        self.loadError = loadError
        self.state = DemoState(configuration: configuration, catalog: catalog)
    }

    /// The root URL while running, e.g. `http://127.0.0.1:54321/`.
    public var baseURL: URL? {
        lifecycle.withLock { state in
            if case .running(_, let url) = state { url } else { nil }
        }
    }

    /// Starts listening on 127.0.0.1 and returns the root URL once connections are accepted.
    @discardableResult
    public func start() async throws -> URL {
        if let loadError { throw loadError }
        try lifecycle.withLock { state in
            guard case .idle = state else { throw DemoLibraryError.alreadyRunning }
            state = .starting
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // Threads of its own: a caller that blocks Swift concurrency's few shared threads cannot starve it.
        let threads = ServerThreads(name: "demo-library")
        let app = makeApplication(eventLoopGroup: .shared(threads.eventLoopGroup)) { port in
            continuation.yield(port)
            continuation.finish()
        }
        // Stopped gracefully, never cancelled while it may have a connection accepted (see `GracefulRun`).
        let run = GracefulRun(app, threads: threads, logger: Logger(label: "shelf-demo-library")) { continuation.finish() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            lifecycle.withLock { $0 = .idle }
            do {
                try await run.result.get()
                throw DemoLibraryError.couldNotListen("the server stopped before listening")
            } catch let error as DemoLibraryError {
                throw error
            } catch {
                throw DemoLibraryError.couldNotListen(String(describing: error))
            }
        }
        let url = URL(string: "http://127.0.0.1:\(port)/")!
        await state.setBaseURL(url)
        lifecycle.withLock { $0 = .running(run, url: url) }
        // The audio is made (or read from its cache) in the background, on the server's threads; fulfilment waits
        // for it.
        let state = self.state
        threads.task { try await state.prepareAudio() }
        return url
    }

    /// Starts a server made with `configuration`, runs `body` with it and its root URL, and stops it once `body` has
    /// ended, however it ended: the stop is always awaited, never left to a task of its own.
    public static func serving<T>(
        _ configuration: DemoConfiguration = DemoConfiguration(), _ body: (DemoLibraryServer, URL) async throws -> T
    ) async throws -> T {
        let server = DemoLibraryServer(configuration: configuration)
        let url = try await server.start()
        do {
            let value = try await body(server, url)
            await server.stop()
            return value
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops listening, serves or closes open connections, and returns once nothing answers; safe to call when not
    /// running.
    public func stop() async {
        let running: (GracefulRun, URL)? = lifecycle.withLock { state in
            guard case .running(let run, let url) = state else { return nil }
            state = .idle
            return (run, url)
        }
        guard let (run, url) = running else { return }
        await run.stop(url: url)
    }

    /// Serves until SIGINT or SIGTERM (or until the task is cancelled), calling `onListening` with the root URL once
    /// listening.
    ///
    /// The server accepts no connection until `onListening` returns (Hummingbird awaits it first), so it must not
    /// make requests to this server: tell a client where it is, and let the client make them.
    public func run(onListening: @escaping @Sendable (URL) async -> Void) async throws {
        if let loadError { throw loadError }
        let state = self.state
        let listening = Listening()
        let app = makeApplication(eventLoopGroup: .singleton) { port in
            listening.begin()
            let url = URL(string: "http://127.0.0.1:\(port)/")!
            await state.setBaseURL(url)
            Task { try? await state.prepareAudio() }
            await onListening(url)
        }
        do {
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } catch where !listening.began && !(error is CancellationError) {
            // As `start()` says it: the port is taken, or the address cannot be had.
            throw DemoLibraryError.couldNotListen(String(describing: error))
        }
    }

    private func makeApplication(
        eventLoopGroup: EventLoopGroupProvider, onListening: @escaping @Sendable (Int) async -> Void
    ) -> some ApplicationProtocol {
        let router = Router(context: DemoRequestContext.self)
        router.add(middleware: DemoStateMiddleware(state: state))
        CatalogRoutes.add(to: router, state: state)
        OPDS2Routes.add(to: router, state: state)
        BrowseRoutes.add(to: router, state: state)
        LoansRoutes.add(to: router, state: state, configuration: configuration)
        FulfilmentRoutes.add(to: router, state: state, configuration: configuration)
        FileRoutes.add(to: router, state: state)
        AnnotationRoutes.add(to: router, state: state, configuration: configuration)
        ProfileRoutes.add(to: router, state: state, configuration: configuration)
        PlaytimeRoutes.add(to: router, state: state, configuration: configuration)
        ProgressionRoutes.add(to: router, state: state, configuration: configuration)
        RegistryRoutes.add(to: router, state: state)
        SignInRoutes.add(to: router, state: state)
        AdminRoutes.add(to: router, state: state)
        // Quiet by default: the executable's stdout carries only its "listening on" line.
        var logger = Logger(label: "shelf-demo-library") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = ProcessInfo.processInfo.environment["SHELF_DEMO_LOG"].flatMap { Logger.Level(rawValue: $0) } ?? .critical
        return Application(
            router: router,
            configuration: .init(
                // Loopback only, always: the demo library must never be reachable from the network.
                address: .hostname("127.0.0.1", port: configuration.port),
                serverName: "shelf-demo-library"
            ),
            onServerRunning: { channel in
                await onListening(channel.localAddress?.port ?? 0)
            },
            eventLoopGroupProvider: eventLoopGroup,
            logger: logger
        )
    }
}

/// Whether a server got as far as listening: a failure before that is one to listen.
private final class Listening: Sendable {
    private let state = Mutex(false)
    func begin() { state.withLock { $0 = true } }
    var began: Bool { state.withLock { $0 } }
}
