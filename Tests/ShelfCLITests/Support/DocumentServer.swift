import DemoLibrary
import Foundation
import Hummingbird
import Logging
import Synchronization

/// Serves real catalog documents (the Palace fixtures in ../shared/fixtures-real) on 127.0.0.1, each at a path,
/// with the absolute links they hold to hosts on the internet rewritten to this server, so a test that follows
/// them never looks up any other name. Records the requests it answers.
final class DocumentServer: Sendable {
    struct Document: Sendable {
        var file: URL
        var contentType = "application/atom+xml;profile=opds-catalog"
    }

    private let documents: [String: Document]
    /// Origins (`https://host`) whose links are rewritten to this server.
    private let origins: [String]
    private let state = Mutex<(base: String?, requests: [String], run: GracefulRun?)>((nil, [], nil))

    init(documents: [String: Document], origins: [String]) {
        self.documents = documents
        self.origins = origins
    }

    /// The requests answered so far, as path and query.
    var requests: [String] { state.withLock { $0.requests } }

    /// Starts listening on a free loopback port; returns the server's root URL.
    func start() async throws -> URL {
        let router = Router()
        router.get("**") { request, _ -> Response in
            let path = request.uri.path
            self.state.withLock { $0.requests.append(path + (request.uri.query.map { "?" + $0 } ?? "")) }
            guard let document = self.documents[path], var text = try? String(contentsOf: document.file, encoding: .utf8),
                let base = self.state.withLock({ $0.base })
            else { return Response(status: .notFound) }
            for origin in self.origins { text = text.replacingOccurrences(of: origin, with: base) }
            return Response(
                status: .ok, headers: [.contentType: document.contentType], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // Quiet: a connection cut short by stopping would otherwise be logged as an error.
        var logger = Logger(label: "shelf-tests-documents")
        logger.logLevel = .critical
        // Threads of its own, as the demo library's: a test blocking the shared ones cannot starve it.
        let threads = ServerThreads(name: "documents")
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            eventLoopGroupProvider: .shared(threads.eventLoopGroup),
            logger: logger)
        // Stopped gracefully, never cancelled while it may have a connection accepted (see `GracefulRun`).
        let run = GracefulRun(app, threads: threads, logger: logger) { continuation.finish() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw DocumentServerError() }
        let base = "http://127.0.0.1:\(port)"
        state.withLock {
            $0.base = base
            $0.run = run
        }
        return URL(string: base + "/")!
    }

    /// Stops listening; returns once nothing answers on the port.
    func stop() async {
        let (run, base) = state.withLock { ($0.run, $0.base) }
        if let base, let url = URL(string: base) { await run?.stop(url: url) }
    }

    struct DocumentServerError: Error {}
}
