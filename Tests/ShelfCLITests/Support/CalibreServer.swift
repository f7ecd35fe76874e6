import Foundation
import ShelfSpawn
import Glibc
import Synchronization
import ShelfCore
import Testing

/// calibre's content server (Debian's `calibre`), serving a small library built for the test: a real OPDS
/// server written by others, with a navigation root, single-file audiobooks and HTTP Basic or Digest sign-in.
///
/// calibre runs one server per user at a time ("another calibre program is running"), so every start takes a
/// lock that `stop()` gives back: tests that use it wait for one another, in this process and in others.
final class CalibreServer: @unchecked Sendable {
    enum Auth: Sendable {
        case none, basic, digest
    }

    /// The one account of the servers started with sign-in.
    static let username = "patron"
    static let password = "s3cret pass"

    /// The books every library holds, by title: an mp3 with ID3 chapters, an ogg with chapter comments, an m4b
    /// with chapter atoms (calibre leaves m4b out of its feeds) and a text book.
    static let books: [(title: String, author: String, file: String)] = [
        ("The Lighthouse Keeper", "Ada Example", "keeper.mp3"),
        ("Tides", "Ben Sample", "tides.ogg"),
        ("Harbour Lights", "Ada Example", "harbour.m4b"),
        ("A Short Story", "Ada Example", "story.txt"),
    ]
    /// The chapters of the mp3 and the ogg, as their files carry them.
    static let keeperChapters = ["Arrival", "The Storm", "Morning"]
    static let tidesChapters = ["Low Water", "High Water"]

    static var isInstalled: Bool {
        ["calibre-server", "calibredb", "ffmpeg"].allSatisfy { tool in
            (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").contains {
                FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)")
            }
        }
    }

    static let skipMessage: Comment =
        "calibre is not installed (Scripts/setup --test installs Debian's calibre); the calibre-server tests are skipped"

    /// The catalog root, `http://127.0.0.1:PORT/opds`.
    let url: URL
    let port: Int
    let auth: Auth
    private let directory: URL
    private let process: ChildProcess
    private let lock: Int32

    private init(url: URL, port: Int, auth: Auth, directory: URL, process: ChildProcess, lock: Int32) {
        self.url = url
        self.port = port
        self.auth = auth
        self.directory = directory
        self.process = process
        self.lock = lock
    }

    /// Builds a library and starts `calibre-server` on a free loopback port; returns once `/opds` answers.
    static func start(auth: Auth = .none, generated: Int = 0) async throws -> CalibreServer {
        let lock = try await offloaded { try takeLock() }
        do {
            return try await offloaded { try launch(auth: auth, generated: generated, lock: lock) }
        } catch {
            flock(lock, LOCK_UN)
            close(lock)
            throw error
        }
    }

    /// Stops the server and waits for it to exit, so the next one can start.
    func stop() async {
        let (process, lock, directory) = (self.process, self.lock, self.directory)
        _ = try? await offloaded {
            if process.isRunning {
                // SIGKILL, not SIGTERM: a child that a test process starts inherits a signal mask that blocks
                // SIGTERM (the threads Swift concurrency runs on block it), so a polite stop waited out its whole
                // patience, 10 s a server; the server's library is a scratch copy with nothing to save.
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(at: directory)
            flock(lock, LOCK_UN)
            close(lock)
        }
    }

    /// Changes the account's password in the running server's user database, as its administrator would;
    /// the server checks the next request against the new one.
    func changePassword(to password: String) async throws {
        guard auth != .none else { throw Failure("this server was started without sign-in") }
        let (users, directory) = (directory.appendingPathComponent("users.sqlite").path, directory)
        try await offloaded {
            try Self.run(
                "calibre-server", ["--userdb", users, "--manage-users", "--", "chpass", Self.username, password],
                environment: ["CALIBRE_CONFIG_DIRECTORY": directory.appendingPathComponent("config").path])
        }
    }

    /// Removes a book through the running server (started with `generated`, which allows local writes), as a
    /// librarian deleting it would.
    func remove(bookID: Int) async throws {
        let (port, directory) = (port, directory)
        try await offloaded {
            try Self.run(
                "calibredb", ["--with-library", "http://127.0.0.1:\(port)#library", "remove", "\(bookID)"],
                environment: ["CALIBRE_CONFIG_DIRECTORY": directory.appendingPathComponent("config").path])
        }
    }

    /// Adds `count` books without files to `library`, as `calibredb add --empty` adds one, through calibre's own
    /// library API in one process (`Fixtures/calibre/generate-books.py`, which `Benchmarks/crawl.sh` runs too).
    private static func generate(_ count: Int, in library: URL, environment: [String: String]) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/calibre/generate-books.py")
        try run("calibre-debug", ["-e", script.path, library.path, "\(count)"], environment: environment)
    }

    // MARK: building and starting

    private static func takeLock() throws -> Int32 {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-tests-calibre.lock").path
        let descriptor = open(path, O_CREAT | O_RDWR, 0o644)
        guard descriptor >= 0 else { throw Failure("cannot open \(path)") }
        guard flock(descriptor, LOCK_EX) == 0 else {
            close(descriptor)
            throw Failure("cannot lock \(path)")
        }
        return descriptor
    }

    private static func launch(auth: Auth, generated: Int, lock: Int32) throws -> CalibreServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-calibre-\(UUID().uuidString)")
        let library = directory.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var arguments = ["--disable-use-bonjour", "--listen-on", "127.0.0.1"]
        try FileManager.default.copyItem(at: try template(), to: library)
        if generated > 0 {
            try generate(generated, in: library, environment: ["CALIBRE_CONFIG_DIRECTORY": directory.appendingPathComponent("config").path])
            // `calibredb --with-library URL` may then change the library through the server (`remove`).
            arguments.append("--enable-local-write")
        }
        switch auth {
        case .none: break
        case .basic, .digest:
            let users = directory.appendingPathComponent("users.sqlite").path
            try run("calibre-server", ["--userdb", users, "--manage-users", "--", "add", username, password])
            arguments += ["--enable-auth", "--auth-mode", auth == .basic ? "basic" : "digest", "--userdb", users]
        }
        let port = try LoopbackPort.free()
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["calibre-server"] + arguments + ["--port", "\(port)", library.path]
        var environment = ProcessInfo.processInfo.environment
        environment["CALIBRE_CONFIG_DIRECTORY"] = directory.appendingPathComponent("config").path
        environment["XDG_RUNTIME_DIR"] = directory.path
        process.environment = environment
        let log = directory.appendingPathComponent("server.log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        let url = URL(string: "http://127.0.0.1:\(port)/opds")!
        let deadline = Date().addingTimeInterval(60)
        while !answers(port: port) {
            guard process.isRunning, Date() < deadline else {
                if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                try? FileManager.default.removeItem(at: directory)
                throw Failure("calibre-server did not start: \(text.suffix(400))")
            }
            usleep(100_000)
        }
        return CalibreServer(url: url, port: port, auth: auth, directory: directory, process: process, lock: lock)
    }

    /// The library every server starts from, built once per test process (under the lock) and copied.
    private static let built = Mutex<URL?>(nil)

    private static func template() throws -> URL {
        if let library = built.withLock({ $0 }) { return library }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-calibre-template-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        let library = directory.appendingPathComponent("library")
        let books = directory.appendingPathComponent("books")
        try FileManager.default.createDirectory(at: books, withIntermediateDirectories: true)
        try makeBooks(in: books)
        for book in Self.books {
            try run("calibredb", ["add", "--library-path", library.path, "-t", book.title, "-a", book.author,
                                  books.appendingPathComponent(book.file).path])
        }
        built.withLock { $0 = library }
        return library
    }

    /// Audio made with ffmpeg, with chapters in each format's own way, and a text book.
    private static func makeBooks(in directory: URL) throws {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        var metadata = ";FFMETADATA1\ntitle=The Lighthouse Keeper\nartist=Ada Example\ngenre=Audiobook\n"
        for (index, title) in keeperChapters.enumerated() {
            metadata += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(index * 2000)\nEND=\((index + 1) * 2000)\ntitle=\(title)\n"
        }
        try Data(metadata.utf8).write(to: directory.appendingPathComponent("chapters.txt"))
        let tone = ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=440:duration=6"]
        try run("ffmpeg", tone + ["-i", path("chapters.txt"), "-map", "0:a", "-map_metadata", "1", "-map_chapters", "1",
                                  "-c:a", "libmp3lame", "-b:a", "32k", "-id3v2_version", "3", path("keeper.mp3")])
        try run("ffmpeg", tone + ["-i", path("chapters.txt"), "-map", "0:a", "-map_metadata", "1", "-map_chapters", "1",
                                  "-c:a", "aac", "-b:a", "32k", "-f", "mp4", path("harbour.m4b")])
        var comments: [String] = []
        for (index, title) in tidesChapters.enumerated() {
            let number = String(format: "%03d", index + 1)
            comments += ["-metadata", "CHAPTER\(number)=00:00:0\(index * 3).000", "-metadata", "CHAPTER\(number)NAME=\(title)"]
        }
        try run("ffmpeg", tone + ["-c:a", "libvorbis", "-metadata", "title=Tides"] + comments + [path("tides.ogg")])
        try Data("A short story, in plain text.\n".utf8).write(to: directory.appendingPathComponent("story.txt"))
    }

    private static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure("\(tool) failed (\(process.terminationStatus)): \(String(decoding: text, as: UTF8.self).suffix(400))")
        }
    }

    /// Whether something accepts connections on the port.
    private static func answers(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
