import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

@Suite(.timeLimit(.minutes(5))) struct HTTPClientTests {
    private func withServer(_ body: (URL, DemoLibraryServer) async throws -> Void) async throws {
        try await withDemoLibrary { server, url in try await body(url, server) }
    }

    @Test func followsABoundedNumberOfRedirects() async throws {
        try await withServer { url, _ in
            let followed = try HTTPClient().request(URL(string: "_demo/redirect?to=/", relativeTo: url)!.absoluteURL)
            #expect(followed.status == 200)
            #expect(followed.url == url.absoluteString)
            #expect(String(decoding: followed.body, as: UTF8.self).contains("<feed"))

            #expect {
                _ = try HTTPClient().request(URL(string: "_demo/redirect-loop", relativeTo: url)!.absoluteURL)
            } throws: { error in
                guard case NetworkError.tooManyRedirects = error else { return false }
                return (error as? NetworkError)?.exitCode == .protocolError
            }
        }
    }

    @Test func decodesGzipAndSendsValidators() async throws {
        try await withServer { url, server in
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-http-\(UUID()).xml")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let page = URL(string: "crawlable", relativeTo: url)!.absoluteURL
            let first = try HTTPClient().get(page, spillingTo: scratch)
            #expect(first.status == 200)
            // The server compressed it; what we hold is the XML itself.
            #expect(first.header("content-encoding") == "gzip")
            #expect(String(decoding: first.body.prefix(5), as: UTF8.self) == "<?xml")
            let etag = try #require(first.header("etag"))
            let second = try HTTPClient().get(page, validators: CacheValidators(etag: etag), spillingTo: scratch)
            #expect(second.status == 304)
            #expect(second.body.isEmpty)
            #expect(await server.state.notModifiedCount("/crawlable") == 1)
        }
    }

    @Test func aLargeBodyGoesToTheFileInsteadOfMemory() async throws {
        try await withServer { url, _ in
            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("shelf-http-\(UUID()).xml")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let response = try HTTPClient().get(
                URL(string: "crawlable", relativeTo: url)!.absoluteURL, spillingTo: scratch, memoryLimit: 1024)
            #expect(response.bodyFile == scratch)
            #expect(response.body.isEmpty)
            let written = try Data(contentsOf: scratch)
            #expect(Int64(written.count) == response.bodyBytes)
            #expect(String(decoding: written.suffix(8), as: UTF8.self).contains("</feed>"))
        }
    }

    @Test func aBodyOverTheLimitIsRefused() async throws {
        try await withServer { url, _ in
            var configuration = HTTPConfiguration()
            configuration.maxBodyBytes = 1000
            #expect {
                _ = try HTTPClient(configuration: configuration).request(URL(string: "crawlable", relativeTo: url)!.absoluteURL)
            } throws: { error in
                guard case NetworkError.tooLarge = error else { return false }
                return true
            }
        }
    }

    @Test func refusesACertificateItCannotVerify() async throws {
        let server = try await SelfSignedTLSServer.start()
        defer { server.stop() }
        let port = server.port
        let client = HTTPClient()
        #expect {
            _ = try client.request(URL(string: "https://127.0.0.1:\(port)/")!)
        } throws: { error in
            guard case NetworkError.tls(let host, _) = error else { return false }
            return host == "127.0.0.1" && (error as? NetworkError)?.exitCode == .protocolError
                && (error as? NetworkError)?.description.contains("will not connect insecurely") == true
        }
    }

    @Test func credentialsAreDroppedOnARedirectToAnotherHost() async throws {
        try await withServer { url, _ in
            let port = url.port!
            let basic = "Basic " + Data("demo:1234".utf8).base64EncodedString()
            // Same host: the credentials go along and the loans feed opens.
            let same = try HTTPClient().request(
                URL(string: "http://127.0.0.1:\(port)/_demo/redirect?to=http://127.0.0.1:\(port)/loans/")!,
                headers: ["Authorization": basic])
            #expect(same.status == 200)
            // Another host name (still this machine): libcurl does not forward them.
            let other = try HTTPClient().request(
                URL(string: "http://127.0.0.1:\(port)/_demo/redirect?to=http://localhost:\(port)/loans/")!,
                headers: ["Authorization": basic])
            #expect(other.url.hasPrefix("http://localhost:"))
            #expect(other.status == 401)
        }
    }

    @Test func credentialsNeverReachTheLog() {
        #expect(Redaction.url("https://user:secret@lib.example/feed?token=abc&page=2")
            == "https://***@lib.example/feed?token=***&page=2")
    }

    @Test func anHTMLPageIsToldByItsContentTypeWhateverItsCase() {
        for type in ["text/html", "text/html; charset=utf-8", "TEXT/HTML", "Text/Html;charset=UTF-8", "application/xhtml+xml"] {
            #expect(HTTPResponse.isHTML(contentType: type), "\(type)")
        }
        for type in [nil, "", "application/atom+xml;profile=opds-catalog", "application/opds+json", "text/plain", "audio/mpeg",
                     "text/htm", "application/xml"] as [String?] {
            #expect(!HTTPResponse.isHTML(contentType: type), "\(type ?? "nil")")
        }
        let page = HTTPResponse(status: 200, headers: ["content-type": "text/HTML"], url: "http://127.0.0.1/", body: Data(), bodyBytes: 0)
        #expect(page.isHTML)
    }
}
