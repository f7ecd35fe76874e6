import Foundation
import ShelfSpawn
import Glibc
import ShelfCore
import Testing

/// Codex, the Django comic server from PyPI (`Scripts/codex/install` puts 1.9.24 in `.build/codex-venv`), started
/// on loopback by `Scripts/codex/start` with a library of two generated comics and a patron `reader`: a real OPDS 2
/// server written by others, whose publications link a Readium progression document.
final class CodexServer: @unchecked Sendable {
    /// The repository, from this file's place in it.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let venv = URL(fileURLWithPath: ProcessInfo.processInfo.environment["SHELF_CODEX_VENV"]
                          ?? repository.appendingPathComponent(".build/codex-venv").path)

    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: venv.appendingPathComponent("bin/codex").path)
    }

    static let skipMessage: Comment =
        "Codex is not installed (Scripts/setup --test installs it from PyPI in .build/codex-venv); the Codex tests are skipped"

    /// What the start script printed: BASE_URL, OPDS_V2_START_URL, USERNAME, PASSWORD, USER_TOKEN, COMIC_PK, ….
    let facts: [String: String]
    private let directory: URL

    private init(facts: [String: String], directory: URL) {
        self.facts = facts
        self.directory = directory
    }

    subscript(key: String) -> String { facts[key] ?? "" }

    /// Starts Codex on a free loopback port and waits until both comics are imported; a port taken before Codex
    /// could listen on it (the start script exits 3) is given up for another, three times at most.
    static func start() async throws -> CodexServer {
        try await offloaded {
            var attempt = 0
            while true {
                attempt += 1
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-codex-\(UUID().uuidString.prefix(8))")
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let process = ChildProcess()
                process.executableURL = repository.appendingPathComponent("Scripts/codex/start")
                process.arguments = [directory.path, "\(try LoopbackPort.free())"]
                var environment = ProcessInfo.processInfo.environment
                environment["SHELF_CODEX_VENV"] = venv.path
                // Codex's start (Django, hypercorn, the import) takes 10 s idle and over 2 minutes beside the whole
                // suite on two cores: the wait is generous, and the suite's limit above it.
                environment["IMPORT_TIMEOUT"] = "360"
                process.environment = environment
                let log = directory.appendingPathComponent("start.log")
                FileManager.default.createFile(atPath: log.path, contents: nil)
                process.standardError = try FileHandle(forWritingTo: log)
                let data = try process.runReadingOutput()
                if process.terminationStatus == 3 && attempt < 3 {
                    try? FileManager.default.removeItem(at: directory)
                    continue
                }
                guard process.terminationStatus == 0 else {
                    let reason = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                    throw CodexFailure("Scripts/codex/start failed: \(reason.suffix(2000))")
                }
                return try facts(from: data, directory: directory)
            }
        }
    }

    /// The start script's KEY=VALUE lines.
    private static func facts(from data: Data, directory: URL) throws -> CodexServer {
        var facts: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            facts[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return CodexServer(facts: facts, directory: directory)
    }

    /// Stops Codex and every process of its group (the start script made it a group leader), then removes its
    /// folder. Without a Process of its own: Codex is killed outright after 5 s of asking it to stop.
    func stop() async {
        let directory = self.directory
        try? await offloaded {
            let text = try String(contentsOf: directory.appendingPathComponent("codex.pid"), encoding: .utf8)
            if let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 {
                kill(-pid, SIGTERM)
                var waited = 0
                while kill(-pid, 0) == 0 && waited < 100 {
                    usleep(50_000)
                    waited += 1
                }
                kill(-pid, SIGKILL)
                while kill(-pid, 0) == 0 && waited < 200 {
                    usleep(50_000)
                    waited += 1
                }
            }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// Codex's own REST API (not OPDS), with the patron's token.
    func api(_ path: String, method: String = "GET", json: String? = nil) async throws -> (Int, Data) {
        let url = URL(string: self["BASE_URL"] + path)!
        var fields = ["Authorization": "Bearer \(self["USER_TOKEN"])", "Accept": "application/json"]
        if json != nil { fields["Content-Type"] = "application/json" }
        let (headers, body) = (fields, json.map { Data($0.utf8) })
        let response = try await offloaded {
            try HTTPClient(configuration: HTTPConfiguration()).request(url, method: method, headers: headers, body: body)
        }
        return (response.status, response.body)
    }

    /// The comic's bookmarked page (from 0) as Codex's own API reports it; `?ts=` skips its week-long cache.
    func page(ofComic pk: String) async throws -> Int? {
        let (status, data) = try await api("/api/v3/c/\(pk)/metadata?ts=\(UUID().uuidString)")
        guard status == 200, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return (object["page"] as? NSNumber)?.intValue
    }

}

struct CodexFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
