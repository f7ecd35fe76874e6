import Foundation
import Hummingbird

/// Small pieces of HTTP the routes share: content negotiation, validators, documents.
enum HTTPSupport {
    static let atomAcquisition = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    static let atomEntry = "application/atom+xml;type=entry;profile=opds-catalog"
    static let problemType = "application/api-problem+json"

    /// Whether `Accept-Encoding` allows gzip (a `q=0` refuses it).
    static func acceptsGzip(_ request: Request) -> Bool {
        guard let header = request.headers[values: .acceptEncoding].joined(separator: ",").nonEmpty else {
            return false
        }
        var gzipQuality: Double?
        var wildcardQuality: Double?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = parts.first?.lowercased() else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 1.0
            }
            if coding == "gzip" || coding == "x-gzip" { gzipQuality = quality }
            if coding == "*" { wildcardQuality = quality }
        }
        return (gzipQuality ?? wildcardQuality ?? 0) > 0
    }

    /// Whether the request's validators match, so it can be answered 304 (RFC 9110 §13.1.2–13.2.2:
    /// `If-None-Match` wins over `If-Modified-Since`, and compares weakly).
    static func isNotModified(_ request: Request, entityTags: [String], lastModified: Date) -> Bool {
        let candidates = request.headers[values: .ifNoneMatch]
        if !candidates.isEmpty {
            for candidate in candidates.joined(separator: ",").split(separator: ",") {
                var tag = candidate.trimmingCharacters(in: .whitespaces)
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if entityTags.contains(tag) { return true }
            }
            return false
        }
        if let since = request.headers[.ifModifiedSince].flatMap(DemoDates.parseHTTP) {
            return lastModified <= since
        }
        return false
    }

    static func response(_ body: ByteBuffer, status: HTTPResponse.Status = .ok, contentType: String,
                         headers extra: HTTPFields = [:]) -> Response {
        var headers = extra
        headers[.contentType] = contentType
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    static func xml(_ text: String, contentType: String = atomAcquisition) -> Response {
        response(ByteBuffer(string: text), contentType: contentType, headers: [.cacheControl: "private, no-cache"])
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok,
                     contentType: String = "application/json") throws -> Response {
        response(try encoded(value), status: status, contentType: contentType)
    }

    /// A value as the JSON the routes send.
    static func encoded(_ value: some Encodable) throws -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return ByteBuffer(bytes: try encoder.encode(value))
    }

    /// A Palace-style problem detail document (RFC 7807).
    struct Problem: Codable {
        var type: String
        var title: String
        var status: Int
        var detail: String
    }

    static func problem(_ status: HTTPResponse.Status, type: String, title: String, detail: String,
                        headers extra: HTTPFields = [:]) -> Response {
        let problem = Problem(type: type, title: title, status: status.code, detail: detail)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = (try? encoder.encode(problem)) ?? Data("{}".utf8)
        var headers = extra
        headers[.contentType] = problemType
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func notFound(_ detail: String) -> Response {
        problem(.notFound, type: "http://librarysimplified.org/terms/problem/not-found", title: "Not found", detail: detail)
    }

    /// A feed rendered on request, with a strong ETag of its body and Last-Modified, answered 304 when the
    /// request's validators match.
    static func validatedXML(_ body: String, lastModified: Date, request: Request) -> Response {
        let entityTag = FNV1a64.entityTag(of: Array(body.utf8))
        if isNotModified(request, entityTags: [entityTag], lastModified: lastModified) {
            return notModified(entityTag: entityTag, lastModified: lastModified)
        }
        var response = xml(body)
        response.headers[.eTag] = entityTag
        response.headers[.lastModified] = DemoDates.http(lastModified)
        response.headers[.cacheControl] = "private, no-cache"
        return response
    }

    /// A 304: validators and `Vary`, no body and no Content-Length.
    static func notModified(entityTag: String, lastModified: Date) -> Response {
        var response = Response(status: .notModified, headers: [
            .eTag: entityTag,
            .lastModified: DemoDates.http(lastModified),
            .vary: "Accept-Encoding",
            .cacheControl: "private, no-cache",
        ])
        response.headers[.contentLength] = nil
        return response
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
