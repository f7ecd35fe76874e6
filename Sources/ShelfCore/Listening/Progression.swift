import Foundation

/// A reading position document at a title's progression link: the OPDS community's Progression draft
/// (`application/opds-progression+json`: `modified`, `device`, `progression`, `references` of media fragments) and
/// Readium's (`application/vnd.readium.progression+json`: `modified`, `device`, a `locator`), which Codex, Stump and
/// Komga serve. shelf writes both shapes in one document and reads either.
public struct RemoteProgression: Sendable, Equatable {
    public var modified: Date
    public var deviceID: String?
    public var deviceName: String?
    /// The part's href (the locator's, or a reference's before its `#`), when given.
    public var href: String?
    /// Seconds into the part, from a `t=` media fragment.
    public var seconds: Double?
    /// The part's number from 1 (the locator's `position`), when given.
    public var position: Int?
    /// 0…1 through the part, and through the whole book.
    public var progression: Double?
    public var totalProgression: Double?

    /// Link relations and media types of a progression link.
    public static let rels: Set<String> = [
        "http://opds-spec.org/progression", "http://www.cantook.com/api/progression", "http://readium.org/progression",
    ]
    public static let mediaTypes: Set<String> = ["application/opds-progression+json", "application/vnd.readium.progression+json"]
    static let accept = "application/opds-progression+json, application/vnd.readium.progression+json;q=0.9, application/json;q=0.8"
    /// The largest document read: 64 KB.
    static let maxBytes: Int64 = 65_536

    /// Whether a link is a progression link.
    public static func isProgression(rel: String?, type: String?) -> Bool {
        if let rel, rels.contains(rel) { return true }
        let base = type.map { String($0.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces).lowercased() }
        return base.map(mediaTypes.contains) ?? false
    }

    /// Reads a document; why it is not one otherwise.
    public static func parse(_ data: Data) -> Result<RemoteProgression, AnnotationRejection> {
        // Decoded as JSON values, so a boolean is never a number (Foundation on Linux casts one to the other).
        guard case .object(let root)? = try? JSONDecoder().decode(StrictJSON.self, from: data) else {
            return .failure(AnnotationRejection("the progression is not a JSON object"))
        }
        guard case .string(let text)? = root["modified"], let modified = OPDSDate.parse(text) else {
            return .failure(AnnotationRejection("the progression has no modified time"))
        }
        var device: [String: StrictJSON] = [:]
        if case .object(let object)? = root["device"] { device = object }
        var progression = RemoteProgression(modified: modified, deviceID: string(device["id"]), deviceName: string(device["name"]))
        progression.totalProgression = number(root["progression"])
        if case .array(let references)? = root["references"] {
            for case .string(let reference) in references {
                let (href, seconds) = split(reference)
                if progression.seconds == nil, let seconds {
                    progression.seconds = seconds
                    progression.href = href
                }
            }
        }
        if case .object(let locator)? = root["locator"] {
            progression.href = progression.href ?? string(locator["href"])
            var locations: [String: StrictJSON] = [:]
            if case .object(let object)? = locator["locations"] { locations = object }
            progression.position = number(locations["position"]).flatMap { $0 >= 1 ? Int(exactly: $0.rounded()) : nil }
            progression.progression = number(locations["progression"])
            progression.totalProgression = progression.totalProgression
                ?? number(locations["totalProgression"]) ?? number(locations["total_progression"])
            if progression.seconds == nil, case .array(let fragments)? = locations["fragments"] {
                for case .string(let fragment) in fragments where progression.seconds == nil {
                    progression.seconds = split("#" + fragment).seconds
                }
            }
        }
        if let seconds = progression.seconds, !(seconds >= 0 && seconds < 3_600_000) {
            return .failure(AnnotationRejection("the progression's time \(seconds) is not a place in a book"))
        }
        for value in [progression.progression, progression.totalProgression] {
            if let value, !(0...1).contains(value) {
                return .failure(AnnotationRejection("the progression \(value) is not between 0 and 1"))
            }
        }
        return .success(progression)
    }

    private static func string(_ value: StrictJSON?) -> String? {
        guard case .string(let text)? = value, !text.isEmpty else { return nil }
        return text
    }

    private static func number(_ value: StrictJSON?) -> Double? {
        guard case .number(let number)? = value, number.isFinite else { return nil }
        return number
    }

    /// `part-3.mp3#t=849.25` → (`part-3.mp3`, 849.25); a `t=` of `npt:` or a range takes its start.
    static func split(_ reference: String) -> (href: String?, seconds: Double?) {
        let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let href = parts.first.map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        guard parts.count == 2 else { return (href, nil) }
        for item in parts[1].split(separator: "&") where item.hasPrefix("t=") {
            var value = item.dropFirst(2)
            if value.hasPrefix("npt:") { value = value.dropFirst(4) }
            let start = value.prefix { $0 != "," }
            return (href, Double(start) ?? Clock.parse(String(start)))
        }
        return (href, nil)
    }

    /// The document shelf writes for a place: both drafts' members, so either kind of server reads it.
    public static func document(
        modified: Date, device: String, deviceName: String, href: String, type: String?, title: String?, part: Int,
        seconds: Double, partProgression: Double?, totalProgression: Double?
    ) -> Data {
        let fragment = "t=" + String(format: "%.2f", seconds)
        var locations: [String: Any] = ["position": part + 1, "fragments": [fragment]]
        if let partProgression { locations["progression"] = min(1, max(0, partProgression)) }
        if let totalProgression { locations["totalProgression"] = min(1, max(0, totalProgression)) }
        var locator: [String: Any] = ["href": href, "locations": locations]
        if let type { locator["type"] = type }
        if let title { locator["title"] = title }
        var object: [String: Any] = [
            "modified": OPDSDate.format(modified),
            "device": ["id": device, "name": deviceName],
            "references": [href + "#" + fragment],
            "locator": locator,
        ]
        if let totalProgression { object["progression"] = min(1, max(0, totalProgression)) }
        return SortedJSON.data(object) ?? Data()
    }
}

/// Reads and writes progression documents for a library, with the patron's credentials.
public struct ProgressionClient: Sendable {
    let session: LibrarySession
    let libraryName: String

    public init(session: LibrarySession, libraryName: String) {
        self.session = session
        self.libraryName = libraryName
    }

    /// What a read found.
    public enum Read: Sendable, Equatable {
        /// No place kept yet (204), or no such document (404).
        case none
        case progression(RemoteProgression)
        /// A body that is not a progression document, and why.
        case rejected(String)
    }

    /// GETs the document; throws when the server cannot be reached or refuses.
    public func get(_ url: URL) throws -> Read {
        let response = try session.send(url, headers: ["Accept": RemoteProgression.accept])
        if response.status == 204 || response.status == 404 { return .none }
        if response.status == 401 { throw CirculationError.unauthorised(libraryName, signedIn: session.isSignedIn) }
        guard (200..<300).contains(response.status) else {
            throw NetworkError.httpStatus(url: Redaction.url(url.absoluteString), status: response.status)
        }
        switch RemoteProgression.parse(response.body) {
        case .success(let progression): return .progression(progression)
        case .failure(let rejection): return .rejected(rejection.description)
        }
    }

    /// PUTs a document; the status the server answered (409: its document changed after `modified`).
    public func put(_ url: URL, document: Data) throws -> Int {
        try session.send(
            url, method: "PUT",
            headers: ["Content-Type": "application/vnd.readium.progression+json", "Accept": RemoteProgression.accept],
            body: document
        ).status
    }
}
