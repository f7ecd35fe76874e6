import Foundation

/// A patron's annotation of a work, as a Palace Project annotation service keeps it: the last
/// listening position (one per work and patron) or a bookmark.
public struct DemoAnnotation: Sendable, Equatable {
    /// Why the annotation was made, as its `motivation` URI.
    public enum Motivation: String, Codable, Sendable, CaseIterable {
        /// The last position read or listened to; posting another replaces it.
        case idling = "http://librarysimplified.org/terms/annotation/idling"
        /// A bookmark; they accumulate.
        case bookmarking = "http://www.w3.org/ns/oa#bookmarking"
    }

    /// The server-assigned number; the annotation's id is `<base>annotations/<number>`.
    public internal(set) var number: Int
    /// The patron who made it.
    public internal(set) var username: String
    /// The work's OPDS id, the target's `source`.
    public internal(set) var workID: String
    /// Idling or bookmarking.
    public internal(set) var motivation: Motivation
    /// The selector's `value`: the locator as a JSON string, exactly as posted.
    public internal(set) var selectorValue: String
    /// The selector's `type` as posted (`oa:FragmentSelector` or `FragmentSelector`).
    public internal(set) var selectorType: String
    /// The locator's `readingOrderItem`: the href of the audiobook part.
    public internal(set) var readingOrderItem: String
    /// The locator's `readingOrderItemOffsetMilliseconds`.
    public internal(set) var offsetMilliseconds: Int
    /// The body as posted, JSON values by key (`http://librarysimplified.org/terms/time` and so on).
    var body: [String: JSONValue]

    /// The body's `http://librarysimplified.org/terms/device`, when given.
    public var device: String? { body[Self.deviceKey]?.string }
    /// A bookmark's name (`http://librarysimplified.org/terms/bookmarkName`), when given.
    public var name: String? { body["http://librarysimplified.org/terms/bookmarkName"]?.string }
    /// The body's `http://librarysimplified.org/terms/time`, when given (e.g. `2024-07-15T18:43:38Z`).
    public var time: String? { body[Self.timeKey]?.string }

    static let deviceKey = "http://librarysimplified.org/terms/device"
    static let timeKey = "http://librarysimplified.org/terms/time"
    static let chapterKey = "http://librarysimplified.org/terms/chapter"
}

/// What the server answers when asked for annotations while a malformed one is switched on.
public enum MalformedAnnotation: String, Codable, Sendable, CaseIterable {
    /// An idling annotation whose locator is well-formed JSON but no valid locator
    /// (a `LocatorHrefProgression` without its `href`).
    case invalidLocator
    /// An idling annotation whose selector value is JSON cut off in the middle.
    case unparseableLocator
    /// An idling annotation with no `target` at all.
    case missingTarget
    /// Hostile ones, each an idling annotation of another device on part 1 (`…readingOrderItem:0`) unless said:
    /// an offset of 1e20 ms.
    case hugeOffset
    /// An offset of 10 hours, within the limit but past the end of the part.
    case offsetPastTheEnd
    /// An offset of -5,000 ms.
    case negativeOffset
    /// `NaN` written as the offset, which is not JSON.
    case nanOffset
    /// A readingOrderItem that names no part of the title.
    case wrongHref
    /// An annotation of another work, served in this work's list.
    case otherBook
    /// A locator wrapped in 10,000 `locator` members.
    case deepLocator
    /// An annotation whose body holds 50 MB of padding.
    case hugeBody
}

/// Why an annotation was refused; each is a Palace problem document.
public enum DemoAnnotationError: Error, LocalizedError, Equatable, Sendable {
    /// The document is not an annotation: not JSON, or a required member is missing or of the wrong type.
    case invalidFormat(String)
    /// The motivation is neither idling nor bookmarking.
    case invalidMotivation(String)
    /// The target work does not exist, or the patron has no loan of it and it is not open access.
    case invalidTarget(String)
    /// No annotation of this patron has this number.
    case notFound(String)
    /// No patron has this username.
    case unknownPatron(String)
    /// The patron's profile says not to synchronize annotations.
    case notOptedIn(String)

    /// The HTTP status of the problem document.
    public var status: Int {
        switch self {
        case .invalidFormat, .invalidMotivation, .invalidTarget: 400
        case .notFound, .unknownPatron: 404
        case .notOptedIn: 403
        }
    }

    /// The problem document's `type`.
    public var problemType: String {
        let prefix = "http://librarysimplified.org/terms/problem/"
        return switch self {
        case .invalidFormat: prefix + "invalid-annotation-format"
        case .invalidMotivation: prefix + "invalid-annotation-motivation"
        case .invalidTarget: prefix + "invalid-annotation-target"
        case .notFound: prefix + "no-annotation"
        case .unknownPatron: prefix + "not-found"
        case .notOptedIn: prefix + "not-opted-in-to-annotation-sync"
        }
    }

    /// The problem document's `title`.
    public var title: String {
        switch self {
        case .invalidFormat: "Invalid annotation format"
        case .invalidMotivation: "Invalid annotation motivation"
        case .invalidTarget: "Invalid annotation target"
        case .notFound: "No annotation"
        case .unknownPatron: "Not found"
        case .notOptedIn: "Not opted in to annotation sync"
        }
    }

    public var errorDescription: String? {
        switch self {
        case .invalidFormat(let detail), .invalidMotivation(let detail), .invalidTarget(let detail),
             .notFound(let detail), .unknownPatron(let detail), .notOptedIn(let detail):
            detail
        }
    }
}

/// Any JSON value, to keep what clients post and write it back unchanged.
enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let value = try? c.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? c.decode(Double.self) {
            self = .number(value)
        } else if let value = try? c.decode(String.self) {
            self = .string(value)
        } else if let value = try? c.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let value): try c.encode(value)
        case .number(let value):
            // Whole numbers are written as integers, as clients and Palace write offsets.
            if value.rounded() == value, abs(value) < 9e15 { try c.encode(Int(value)) } else { try c.encode(value) }
        case .string(let value): try c.encode(value)
        case .array(let value): try c.encode(value)
        case .object(let value): try c.encode(value)
        }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    var number: Double? { if case .number(let value) = self { value } else { nil } }

    subscript(key: String) -> JSONValue? { object?[key] }

    static func parse(_ bytes: some Sequence<UInt8>) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// Compact JSON with sorted keys and unescaped slashes.
    func encoded(pretty: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
            : [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}

/// The two fields of a Palace audiobook locator (`LocatorAudioBookTime`, version 2) the server checks.
struct AudiobookLocator: Equatable {
    var readingOrderItem: String
    var offsetMilliseconds: Int

    /// Reads a selector value: a JSON object with `@type` `LocatorAudioBookTime`, a string
    /// `readingOrderItem` and a non-negative number `readingOrderItemOffsetMilliseconds`, either at
    /// the top level or, as Palace's apps post it, inside a `locator` member.
    static func parse(_ value: String) -> Result<AudiobookLocator, DemoAnnotationError> {
        guard let json = JSONValue.parse(Array(value.utf8)), var locator = json.object else {
            return .failure(.invalidFormat("The selector value is not a JSON object."))
        }
        if let inner = locator["locator"]?.object { locator = inner }
        guard locator["@type"]?.string == "LocatorAudioBookTime" else {
            return .failure(.invalidFormat("The locator's @type must be LocatorAudioBookTime."))
        }
        guard let item = locator["readingOrderItem"]?.string, !item.isEmpty else {
            return .failure(.invalidFormat("The locator's readingOrderItem must be a non-empty string."))
        }
        guard let offset = locator["readingOrderItemOffsetMilliseconds"]?.number, offset.isFinite,
              offset >= 0, offset < 9e15 else {
            return .failure(.invalidFormat(
                "The locator's readingOrderItemOffsetMilliseconds must be a non-negative number."
            ))
        }
        return .success(AudiobookLocator(readingOrderItem: item, offsetMilliseconds: Int(offset.rounded())))
    }

    /// The locator as Palace's apps write it (version 2), as a compact JSON string.
    var jsonString: String {
        let value = JSONValue.object([
            "@type": .string("LocatorAudioBookTime"),
            "@version": .number(2),
            "readingOrderItem": .string(readingOrderItem),
            "readingOrderItemOffsetMilliseconds": .number(Double(offsetMilliseconds)),
        ])
        return String(decoding: value.encoded(), as: UTF8.self)
    }
}
