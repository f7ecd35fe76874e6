import Foundation

/// A Readium audiobook manifest (`application/audiobook+json`): the parts to download, in order, and the
/// table of contents.
public struct AudiobookManifest: Sendable, Equatable, Codable {
    /// One audio file of the reading order.
    public struct Part: Sendable, Equatable, Codable {
        /// Position in the reading order, from 0: with the href's path, how a part is recognised again when a
        /// refetched manifest gives it a new (signed) URL.
        public var index: Int
        /// Absolute URL.
        public var href: String
        public var type: String?
        /// Seconds, as the manifest states it.
        public var duration: Double?
        public var title: String?
        /// Bytes, when the manifest states them.
        public var length: Int64?
        /// A lower-case hex digest with its algorithm (`sha256`, `md5`), when the manifest gives one.
        public var hash: Hash?

        /// The part of the URL that stays the same when a library re-signs it: the path, without query.
        public var stablePath: String { URLComponents(string: href)?.path ?? href }
    }

    /// A digest to check a downloaded part against.
    public struct Hash: Sendable, Equatable, Codable {
        public var algorithm: String
        public var hex: String
    }

    /// A table-of-contents entry: a title at a point in a part.
    public struct Chapter: Sendable, Equatable, Codable {
        public var title: String
        public var partIndex: Int
        /// Seconds into the part (`#t=` fragment).
        public var offset: Double
        public var children: [Chapter]
    }

    public var identifier: String?
    public var title: String
    public var authors: [String]
    public var narrators: [String]
    public var duration: Double?
    public var parts: [Part]
    public var toc: [Chapter]
    /// The DRM scheme the manifest declares, if any.
    public var protection: ProtectionScheme?

    /// Reads a manifest; relative hrefs resolve against `url`.
    public static func parse(_ data: Data, url: URL) throws(FulfilmentError) -> AudiobookManifest {
        let source = url.absoluteString
        let object: Any
        let lists: [String: InputLimit] = ["readingOrder": .manifestParts, "spine": .manifestParts]
        if let limit = InputLimit.jsonViolation(in: data, lists: lists) {
            throw .malformedManifest(url: source, reason: limit.reason())
        }
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .malformedManifest(url: source, reason: "not JSON: \(Self.jsonReason(error))")
        }
        guard let root = object as? [String: Any] else { throw .malformedManifest(url: source, reason: "not a JSON object") }
        let metadata = root["metadata"] as? [String: Any] ?? [:]
        // `spine` is the name early manifests used for the reading order.
        guard let order = (root["readingOrder"] ?? root["spine"]) as? [Any] else {
            throw .malformedManifest(url: source, reason: "no readingOrder")
        }
        var protection = (metadata["encrypted"] as? [String: Any])?["scheme"].flatMap { $0 as? String }
            .flatMap(ProtectionScheme.recognise)
        if order.count > InputLimit.manifestParts.value {
            throw .malformedManifest(url: source, reason: InputLimit.manifestParts.reason())
        }
        var parts: [Part] = []
        for (index, item) in order.enumerated() {
            guard let link = item as? [String: Any] else {
                throw .malformedManifest(url: source, reason: "reading order item \(index + 1) is not an object")
            }
            if protection == nil, let encrypted = (link["properties"] as? [String: Any])?["encrypted"] as? [String: Any],
                let scheme = encrypted["scheme"] as? String
            {
                protection = ProtectionScheme.recognise(scheme) ?? .lcp
            }
            guard let href = link["href"] as? String, !href.isEmpty else {
                // Findaway manifests carry no hrefs: their parts come from the Findaway SDK.
                if protection != nil { continue }
                throw .malformedManifest(url: source, reason: "reading order item \(index + 1) has no href")
            }
            // `http:x` resolves to `http:/works/x`, a web URL without a host that no download could use.
            guard let absolute = URL(string: href, relativeTo: url)?.absoluteURL,
                !["http", "https"].contains(absolute.scheme?.lowercased()) || absolute.host?.isEmpty == false
            else {
                throw .malformedManifest(url: source, reason: "reading order item \(index + 1) has a bad href")
            }
            let properties = link["properties"] as? [String: Any]
            var hash: Hash?
            for (key, algorithm) in [("sha256", "sha256"), ("md5", "md5")] {
                if let value = (link[key] ?? properties?[key]) as? String { hash = Hash(algorithm: algorithm, hex: value.lowercased()) }
            }
            parts.append(Part(
                index: parts.count, href: absolute.absoluteString, type: link["type"] as? String,
                duration: (link["duration"] as? NSNumber).flatMap { OPDSDuration.seconds($0.doubleValue) },
                title: link["title"] as? String,
                length: ((link["length"] as? NSNumber) ?? (properties?["length"] as? NSNumber)).map(\.int64Value)
                    .flatMap { $0 >= 0 ? $0 : nil },
                hash: hash))
        }
        if protection == nil {
            for key in metadata.keys where ProtectionScheme.recognise(key) != nil { protection = ProtectionScheme.recognise(key) }
        }
        if parts.isEmpty && protection == nil {
            throw .malformedManifest(url: source, reason: "the readingOrder is empty")
        }
        let toc = (root["toc"] as? [Any] ?? []).compactMap { chapter($0, parts: parts, base: url) }
        return AudiobookManifest(
            identifier: metadata["identifier"] as? String,
            title: metadata["title"] as? String ?? "Untitled",
            authors: names(metadata["author"] ?? metadata["authors"]),
            narrators: names(metadata["narrator"] ?? metadata["narrators"]),
            duration: (metadata["duration"] as? NSNumber).flatMap { OPDSDuration.seconds($0.doubleValue) },
            parts: parts, toc: toc, protection: protection)
    }

    /// The table of contents, or one chapter per part when the manifest has none.
    public var chapters: [Chapter] {
        if !toc.isEmpty { return toc }
        return parts.map { Chapter(title: $0.title ?? "Part \($0.index + 1)", partIndex: $0.index, offset: 0, children: []) }
    }

    private static func chapter(_ item: Any, parts: [Part], base: URL) -> Chapter? {
        guard let link = item as? [String: Any], let href = link["href"] as? String else { return nil }
        let absolute = URL(string: href, relativeTo: base)?.absoluteURL
        var offset = 0.0
        if let fragment = absolute?.fragment, fragment.hasPrefix("t=") {
            offset = Double(fragment.dropFirst(2).split(separator: ",").first ?? "").flatMap(OPDSDuration.seconds) ?? 0
        }
        let path = absolute.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.path }
        guard let part = parts.first(where: { $0.stablePath == path }) else { return nil }
        let children = (link["children"] as? [Any] ?? []).compactMap { chapter($0, parts: parts, base: base) }
        return Chapter(title: link["title"] as? String ?? part.title ?? "Part \(part.index + 1)", partIndex: part.index,
                       offset: offset, children: children)
    }

    /// Contributor names from a string, an object with `name`, or a list of either.
    private static func names(_ value: Any?) -> [String] {
        switch value {
        case let name as String: return [name]
        case let object as [String: Any]:
            if let name = object["name"] as? String { return [name] }
            // Localised names: {"en": "…"}.
            return (object["name"] as? [String: Any])?.values.compactMap { $0 as? String }.prefix(1).map { $0 } ?? []
        case let list as [Any]: return list.flatMap { names($0) }
        default: return []
        }
    }

    private static func jsonReason(_ error: any Error) -> String {
        let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        return text.split(separator: "\n").first.map(String.init) ?? text
    }
}

/// A bearer-token document (`application/vnd.librarysimplified.bearer-token+json`): a short-lived token and
/// where to use it.
public struct BearerToken: Sendable, Equatable, Codable {
    public static let mediaType = "application/vnd.librarysimplified.bearer-token+json"

    public var accessToken: String
    public var expiresAt: Date
    /// The document the token opens (usually the manifest).
    public var location: String

    /// Reads a token document received at `now`.
    public static func parse(_ data: Data, url: URL, now: Date = Date()) throws(FulfilmentError) -> BearerToken {
        if let limit = InputLimit.jsonViolation(in: data) { throw .malformedToken(url: url.absoluteString, reason: limit.reason()) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw .malformedToken(url: url.absoluteString, reason: "not a JSON object")
        }
        guard let token = object["access_token"] as? String, !token.isEmpty else {
            throw .malformedToken(url: url.absoluteString, reason: "no access_token")
        }
        guard let location = object["location"] as? String, let resolved = URL(string: location, relativeTo: url)?.absoluteURL,
            resolved.scheme == "https" || resolved.scheme == "http"
        else {
            throw .malformedToken(url: url.absoluteString, reason: "no usable location")
        }
        let lifetime = (object["expires_in"] as? NSNumber)?.doubleValue ?? 3600
        return BearerToken(accessToken: token, expiresAt: now.addingTimeInterval(lifetime), location: resolved.absoluteString)
    }

    /// Whether the token can still be used for a request starting now (with a margin for the request itself).
    public func isUsable(at now: Date = Date()) -> Bool { expiresAt.timeIntervalSince(now) > 30 }
}

extension BearerToken: CustomStringConvertible {
    public var description: String { "BearerToken(for \(Redaction.url(location)), token redacted)" }
}
