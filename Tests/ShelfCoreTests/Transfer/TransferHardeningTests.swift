import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

/// The two ways shelf makes requests: one at a time (`HTTPClient`) and parts in parallel (`PartDownloader`).
enum RequestPath: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case client
    case partDownloader

    var testDescription: String { rawValue }

    /// What a request came to: a 2xx body, another status, or a refusal with its reason.
    enum Outcome: Equatable, CustomTestStringConvertible {
        case body(String)
        case status(Int)
        case refused(String)

        var testDescription: String {
            switch self {
            case .body(let text): "body \"\(text.prefix(60))…\""
            case .status(let status): "status \(status)"
            case .refused(let reason): "refused: \(reason)"
            }
        }

        func isRefused(saying text: String) -> Bool {
            guard case .refused(let reason) = self else { return false }
            return reason.contains(text)
        }
    }

    func fetch(
        _ url: URL, configuration: HTTPConfiguration = HTTPConfiguration(), headers: [String: String] = [:]
    ) async throws -> Outcome {
        switch self {
        case .client:
            do {
                let response = try HTTPClient(configuration: configuration).request(url, headers: headers)
                let body = String(decoding: response.body, as: UTF8.self)
                return (200..<300).contains(response.status) ? .body(body) : .status(response.status)
            } catch {
                return .refused("\(error)")
            }
        case .partDownloader:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-hardening-\(UUID())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let part = DownloadPart(
                index: 0, url: url, destination: directory.appendingPathComponent("part"), headers: headers)
            var settings = DownloadSettings()
            settings.maxAttempts = 1
            let results = try PartDownloader(settings: settings, configuration: configuration).run([part])
            switch results[0] {
            case .complete?: return .body(String(decoding: try Data(contentsOf: part.destination), as: UTF8.self))
            case .expired(let status)?: return .status(status)
            case .failed(let reason)?: return .refused(reason)
            case nil: return .refused("no result")
            }
        }
    }
}

/// The hardening every request gets, proved on both paths against real servers on loopback.
@Suite(.timeLimit(.minutes(5))) struct TransferHardeningTests {
    private func withServer(_ body: (URL) async throws -> Void) async throws {
        try await withDemoLibrary { _, url in try await body(url) }
    }

    /// A chain of `hops` redirects through the demo library's redirect route, ending at `target`.
    private func redirects(_ hops: Int, to target: String, on server: URL) -> URL {
        var location = target
        for _ in 0..<hops {
            let encoded = location.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            location = URL(string: "_demo/redirect?to=\(encoded)", relativeTo: server)!.absoluteString
        }
        return URL(string: location)!
    }

    @Test(arguments: RequestPath.allCases) func theConfiguredRedirectLimitHolds(_ path: RequestPath) async throws {
        try await withServer { url in
            var configuration = HTTPConfiguration()
            configuration.maxRedirects = 2
            let followed = try await path.fetch(redirects(2, to: "/", on: url), configuration: configuration)
            guard case .body(let feed) = followed else {
                Issue.record("two redirects should be followed, got \(followed)")
                return
            }
            #expect(feed.contains("<feed"))
            // Three is one more than allowed (and fewer than libcurl's or any hard-coded default).
            let refused = try await path.fetch(redirects(3, to: "/", on: url), configuration: configuration)
            #expect(refused.isRefused(saying: "too many redirects"))
        }
    }

    @Test(arguments: RequestPath.allCases) func aRedirectToAnotherProtocolIsRefused(_ path: RequestPath) async throws {
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-secret-\(UUID())")
        try Data("not for the network".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        try await withServer { url in
            for target in [secret.absoluteString, "ftp://127.0.0.1:\(url.port!)/", "dict://127.0.0.1:\(url.port!)/"] {
                let outcome = try await path.fetch(redirects(1, to: target, on: url))
                #expect(outcome != .body("not for the network"))
                // Both name where the redirect led; the client's is a protocol error, not a usage error.
                #expect(outcome.isRefused(saying: "redirects to \(target), which is not a web address"), "\(target): \(outcome)")
                if path == .client {
                    #expect {
                        _ = try HTTPClient().request(redirects(1, to: target, on: url))
                    } throws: { error in
                        (error as? NetworkError)?.exitCode == .protocolError
                    }
                }
            }
        }
    }

    @Test(arguments: RequestPath.allCases) func credentialsStayWithTheirHost(_ path: RequestPath) async throws {
        try await withServer { url in
            let port = url.port!
            let basic = ["Authorization": "Basic " + Data("demo:1234".utf8).base64EncodedString()]
            // Same host: the credentials go along and the loans feed opens.
            let same = try await path.fetch(
                redirects(1, to: "http://127.0.0.1:\(port)/loans/", on: url), headers: basic)
            guard case .body(let loans) = same else {
                Issue.record("the loans feed should open, got \(same)")
                return
            }
            #expect(loans.contains("<feed"))
            // Another host name (still this machine): libcurl does not forward them.
            let other = try await path.fetch(
                redirects(1, to: "http://localhost:\(port)/loans/", on: url), headers: basic)
            #expect(other == .status(401))
        }
    }

    @Test(arguments: RequestPath.allCases) func aCertificateThatCannotBeVerifiedIsRefused(_ path: RequestPath) async throws {
        let server = try await SelfSignedTLSServer.start()
        defer { server.stop() }
        let outcome = try await path.fetch(URL(string: "https://127.0.0.1:\(server.port)/")!)
        #expect(outcome.isRefused(saying: path == .client ? "will not connect insecurely" : "certificate"), "\(outcome)")
    }

    @Test(arguments: RequestPath.allCases) func anOptionLibcurlRefusesStopsTheRequest(_ path: RequestPath) async throws {
        try await withServer { url in
            var configuration = HTTPConfiguration()
            configuration.maxRedirects = -2
            // No request goes out without every option in place, and libcurl's reason reaches the patron.
            let outcome = try await path.fetch(url, configuration: configuration)
            #expect(outcome.isRefused(saying: "curl_easy_setopt(CURLOPT_MAXREDIRS) failed: A libcurl function was given a bad argument"),
                    "\(outcome)")
        }
    }
}
