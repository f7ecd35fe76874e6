import ArgumentParser
import DemoLibrary
import Foundation

/// Serves the demo library on 127.0.0.1 until SIGINT or SIGTERM (or, when asked, until its input closes).
@main
struct ShelfDemoLibrary: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shelf-demo-library",
        abstract: "Serve a small Palace-style OPDS library on 127.0.0.1 for demos, tests and benchmarks.",
        discussion: "`shelf demo` starts it; its first line on standard output says where it listens."
    )

    @Option(help: "TCP port on 127.0.0.1 (0 picks a free one).")
    var port = 0

    @Flag(help: "When --port is taken, listen on a free port instead.")
    var orFreePort = false

    @Flag(help: "Stop when standard input closes (how shelf demo stops it, and why it stops if shelf dies).")
    var stopWhenInputCloses = false

    @Option(help: "Entries per page of the crawlable feed.")
    var pageSize = 5

    @Option(name: .customLong("generate"), help: "Serve this many synthetic entries instead of the built-in catalog.")
    var generatedEntries: Int?

    @Option(help: "Delay every response by this many milliseconds.")
    var delayMs = 0

    @Flag(help: "Start every patron with an empty shelf (no loans, no holds).")
    var emptyShelf = false

    @Option(help: "Sign-in flows the authentication document offers, comma-separated: basic, basic-token, or a type URI.")
    var auth = "basic,basic-token"

    @Option(help: "Lifetime of a bearer token, in seconds.")
    var tokenLifetime = 3_600

    @Option(help: "Lifetime of an audiobook fulfilment token, in seconds.")
    var fulfilmentTokenLifetime = 3_600

    @Option(help: "Serve every audiobook part at this many bytes, its audio repeated (for benchmarks).")
    var partBytes: Int?

    @Option(help: "Give every audiobook this many parts (default: 2 to 4, by title).")
    var partCount: Int?

    @Option(help: "Make every audiobook part this many seconds long (default: 2 to 4; for benchmarks).")
    var partSeconds: Int?

    @Option(help: "The ffmpeg executable that makes the audiobook parts (default: ffmpeg on PATH).")
    var ffmpeg: String?

    var authFlows: [DemoAuthFlow] {
        auth.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.map { name in
            switch name {
            case "basic": .basic
            case "basic-token": .basicToken
            case "saml": .saml
            case "oidc": .openIDConnect
            case "oauth-implicit": .oauthImplicit
            case "oauth-password": .oauthPassword
            default: .other(type: name)
            }
        }
    }

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard pageSize >= 1 else { throw ValidationError("--page-size must be at least 1") }
        guard (generatedEntries ?? 0) >= 0 else { throw ValidationError("--generate must not be negative") }
        guard delayMs >= 0 else { throw ValidationError("--delay-ms must not be negative") }
        guard tokenLifetime >= 0 else { throw ValidationError("--token-lifetime must not be negative") }
        guard !authFlows.isEmpty else { throw ValidationError("--auth needs at least one flow") }
        guard fulfilmentTokenLifetime >= 0 else { throw ValidationError("--fulfilment-token-lifetime must not be negative") }
        guard (partBytes ?? 1) >= 1 else { throw ValidationError("--part-bytes must be at least 1") }
        guard (partCount ?? 1) >= 1 else { throw ValidationError("--part-count must be at least 1") }
        guard (partSeconds ?? 1) >= 1 else { throw ValidationError("--part-seconds must be at least 1") }
    }

    func run() async throws {
        let serving = Task { try await serve() }
        // The end of input cancels the server, as `DemoLibraryServer.stop()` does.
        let watch = stopWhenInputCloses ? Task {
            await endOfInput()
            if !Task.isCancelled { serving.cancel() }
        } : nil
        defer { watch?.cancel() }
        do {
            try await serving.value
        } catch where serving.isCancelled {
            // Stopped as asked: not a failure.
        }
    }

    /// Serves on --port, or with --or-free-port on a free one when --port cannot be listened on.
    private func serve() async throws {
        do {
            try await serve(port: port)
        } catch DemoLibraryError.couldNotListen(_) where orFreePort && port != 0 {
            try await serve(port: 0)
        }
    }

    private func serve(port: Int) async throws {
        let server = DemoLibraryServer(configuration: DemoConfiguration(
            pageSize: pageSize,
            generatedEntries: generatedEntries,
            startingShelf: !emptyShelf,
            port: port,
            delayMilliseconds: delayMs,
            authFlows: authFlows,
            tokenLifetime: TimeInterval(tokenLifetime),
            fulfilmentTokenLifetime: TimeInterval(fulfilmentTokenLifetime),
            partBytes: partBytes,
            partCount: partCount,
            partSeconds: partSeconds,
            ffmpegPath: ffmpeg
        ))
        let prerender = generatedEntries != nil
        try await server.run { url in
            // A generated catalog is rendered before anyone is told where it is, so the first
            // crawl measures the client rather than the server's rendering.
            if prerender { try? await server.state.prerender() }
            // One unbuffered write, so a script reading our stdout through a pipe sees the line at once.
            FileHandle.standardOutput.write(Data("listening on \(url.absoluteString)\n".utf8))
        }
    }
}

/// Returns once standard input reaches its end or cannot be read, or the task is cancelled. It looks every 100 ms
/// rather than holding a thread, and not through a dispatch read source: tearing one down on a pipe can crash
/// libdispatch on Linux (swift-corelibs-libdispatch issue 949).
private func endOfInput() async {
    var buffer = [UInt8](repeating: 0, count: 512)
    while !Task.isCancelled {
        var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, 0) > 0 {
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) { return }
            continue
        }
        try? await Task.sleep(for: .milliseconds(100))
    }
}
