import Foundation

/// Why an annotation or locator from the server cannot be used: one phrase, for a warning line.
public struct AnnotationRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
    init(_ reason: String) { self.reason = reason }
}

/// A Palace audiobook locator (`LocatorAudioBookTime`): where in which part of the reading order.
public struct AudiobookLocator: Sendable, Equatable {
    /// Version 2: the part's href (or a `…:N` identifier); nil for version 1.
    public var readingOrderItem: String?
    /// Version 1: the chapter number, which for books with one file per chapter is the reading-order index.
    public var chapter: Int?
    /// Milliseconds into the part.
    public var offsetMilliseconds: Double

    public init(readingOrderItem: String, offsetMilliseconds: Double) {
        self.readingOrderItem = readingOrderItem
        self.offsetMilliseconds = offsetMilliseconds
    }

    init(chapter: Int, offsetMilliseconds: Double) {
        self.chapter = chapter
        self.offsetMilliseconds = offsetMilliseconds
    }

    /// How many `locator` members may wrap the position: Palace's apps post one, a real server's dump holds two.
    static let maxWrapping = 8
    /// The longest offset into one part that is taken for a position: 1,000 hours.
    package static let maxOffsetMilliseconds = 3_600_000_000.0

    /// Reads a selector value: version 2 (`readingOrderItem`, `readingOrderItemOffsetMilliseconds`) or version 1
    /// (`chapter`, `time`, `startOffset`), at the top level or wrapped in up to `maxWrapping` `locator` members (as
    /// Palace's apps post it). Numbers are read as JSON numbers, so 0 and 1 are offsets and `true` is not. Ebook
    /// locators and anything malformed are rejected with the reason.
    public static func parse(_ value: String) -> Result<AudiobookLocator, AnnotationRejection> {
        let bytes = Data(value.utf8)
        // The decoder recurses per level: a hostile value 10,000 levels deep is refused before it is parsed.
        let depth = bytes.withUnsafeBytes { JSONDepth.maximum(of: $0, stoppingAbove: maxWrapping + 4) }
        if depth > maxWrapping + 4 {
            return .failure(AnnotationRejection("its locator is nested more than \(maxWrapping) levels deep"))
        }
        guard let tree = try? JSONDecoder().decode(StrictJSON.self, from: bytes) else {
            return .failure(AnnotationRejection("its locator is not valid JSON"))
        }
        guard case .object(var locator) = tree else { return .failure(AnnotationRejection("its locator is not a JSON object")) }
        var wrapping = 0
        while locator["readingOrderItem"] == nil && locator["time"] == nil, case .object(let inner)? = locator["locator"] {
            wrapping += 1
            if wrapping > maxWrapping {
                return .failure(AnnotationRejection("its locator is nested more than \(maxWrapping) levels deep"))
            }
            locator = inner
        }
        guard case .string(let type)? = locator["@type"] else { return .failure(AnnotationRejection("its locator has no @type")) }
        guard type == "LocatorAudioBookTime" else {
            return .failure(AnnotationRejection("its locator is a \(type), not an audiobook position"))
        }
        var version = 1
        if case .number(let number)? = locator["@version"] { version = Int(exactly: number) ?? 0 }
        if version == 2 || locator["readingOrderItem"] != nil {
            guard case .string(let item)? = locator["readingOrderItem"], !item.isEmpty else {
                return .failure(AnnotationRejection("its locator has no readingOrderItem"))
            }
            return milliseconds(locator["readingOrderItemOffsetMilliseconds"], "readingOrderItemOffsetMilliseconds").map {
                AudiobookLocator(readingOrderItem: item, offsetMilliseconds: $0)
            }
        }
        guard version == 1 else { return .failure(AnnotationRejection("its locator is of version \(version), not 1 or 2")) }
        // Version 1: `time` is the offset into the chapter, which starts `startOffset` into its file.
        guard case .number(let number)? = locator["chapter"], let chapter = Int(exactly: number), chapter >= 0 else {
            return .failure(AnnotationRejection("its version 1 locator has no chapter"))
        }
        let start = locator["startOffset"] == nil ? .success(0) : milliseconds(locator["startOffset"], "startOffset")
        return milliseconds(locator["time"], "time").flatMap { time in
            start.flatMap { start in
                time + start > maxOffsetMilliseconds ? .failure(tooLarge("time", time + start))
                    : .success(AudiobookLocator(chapter: chapter, offsetMilliseconds: time + start))
            }
        }
    }

    /// A member that must be a finite, non-negative number of milliseconds within `maxOffsetMilliseconds`.
    private static func milliseconds(_ value: StrictJSON?, _ name: String) -> Result<Double, AnnotationRejection> {
        switch value {
        case .number(let number)?:
            if number < 0 { return .failure(AnnotationRejection("its \(name) \(text(number)) is negative")) }
            if !(number <= maxOffsetMilliseconds) { return .failure(tooLarge(name, number)) }
            return .success(number)
        case nil, .null?: return .failure(AnnotationRejection("its locator has no \(name)"))
        case .bool(let flag)?: return .failure(AnnotationRejection("its \(name) is \(flag), not a number of milliseconds"))
        case .string?, .array?, .object?:
            return .failure(AnnotationRejection("its \(name) is not a number of milliseconds"))
        }
    }

    /// A number of milliseconds for a message: `-5 ms`, `1e+20 ms`.
    private static func text(_ number: Double) -> String {
        (number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)) + " ms"
    }

    private static func tooLarge(_ name: String, _ number: Double) -> AnnotationRejection {
        AnnotationRejection("its \(name) \(text(number)) is more than 1,000 hours")
    }

    /// The locator as Palace's apps write it (version 2), as compact JSON.
    package var jsonString: String {
        let item = String(decoding: (try? JSONSerialization.data(
            withJSONObject: readingOrderItem ?? "", options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data("\"\"".utf8),
            as: UTF8.self)
        return #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":\#(item),"readingOrderItemOffsetMilliseconds":\#(Int(offsetMilliseconds.rounded()))}"#
    }
}


/// An annotation read from a library's annotation service (a W3C Web Annotation with a Palace body).
public struct RemoteAnnotation: Sendable, Equatable {
    public var id: String?
    public var motivation: String
    /// The work's id (the target's `source`).
    public var source: String
    /// The posting device's id; nil when the body names none (some apps write "null").
    public var device: String?
    /// A human name for the device, when the body gives one.
    public var deviceName: String?
    public var time: Date?
    public var chapter: String?
    /// A bookmark's name, when the body gives one.
    public var name: String?
    public var locator: AudiobookLocator

    /// Where a bookmark's name travels in the body. Palace's apps send no name (their bodies hold time, device and
    /// chapter, and keep members they do not know), so shelf adds one in the same vocabulary; a W3C `TextualBody`'s
    /// `value` or an annotation's `bodyValue` is read as the name too.
    static let nameKey = "http://librarysimplified.org/terms/bookmarkName"
    static let timeKey = "http://librarysimplified.org/terms/time"
    static let deviceKey = "http://librarysimplified.org/terms/device"
    static let deviceNameKey = "http://librarysimplified.org/terms/deviceName"
    static let chapterKey = "http://librarysimplified.org/terms/chapter"
    static let mediaType = #"application/ld+json; profile="http://www.w3.org/ns/anno.jsonld""#

    /// The items of an annotation collection (or page, or plain array); one annotation alone is a list of one.
    public static func items(in data: Data) -> Result<[Any], AnnotationRejection> {
        // An annotation is 5 levels deep; a hostile list nested thousands deep never reaches the recursive parser.
        if let limit = InputLimit.jsonViolation(in: data, lists: ["": .annotationsPerResponse, "items": .annotationsPerResponse]) {
            return .failure(AnnotationRejection(limit.reason()))
        }
        guard let json = try? JSONSerialization.jsonObject(with: data) else {
            return .failure(AnnotationRejection("the annotation list is not valid JSON"))
        }
        if let list = json as? [Any] { return bounded(list) }
        guard let object = json as? [String: Any] else { return .failure(AnnotationRejection("the annotation list is not a JSON object")) }
        if let first = object["first"] as? [String: Any] { return bounded(first["items"] as? [Any] ?? []) }
        if let items = object["items"] as? [Any] { return bounded(items) }
        if object["motivation"] != nil || object["target"] != nil { return .success([object]) }
        if (object["total"] as? NSNumber)?.intValue == 0 { return .success([]) }
        return .failure(AnnotationRejection("the document is neither an annotation collection nor an annotation"))
    }

    /// The items, unless there are more than one response may hold.
    private static func bounded(_ items: [Any]) -> Result<[Any], AnnotationRejection> {
        guard items.count <= InputLimit.annotationsPerResponse.value else {
            return .failure(AnnotationRejection(InputLimit.annotationsPerResponse.reason()))
        }
        return .success(items)
    }

    /// The annotation's id for a warning line, when it has one.
    public static func name(of item: Any) -> String {
        ((item as? [String: Any])?["id"] as? String) ?? "(without id)"
    }

    /// Reads one annotation of a collection.
    public static func parse(_ item: Any) -> Result<RemoteAnnotation, AnnotationRejection> {
        guard let object = item as? [String: Any] else { return .failure(AnnotationRejection("it is not a JSON object")) }
        guard let motivation = object["motivation"] as? String else { return .failure(AnnotationRejection("it has no motivation")) }
        guard let target = object["target"] as? [String: Any] else { return .failure(AnnotationRejection("it has no target")) }
        guard let source = target["source"] as? String, !source.isEmpty else {
            return .failure(AnnotationRejection("its target has no source"))
        }
        guard let selector = target["selector"] as? [String: Any], let value = selector["value"] as? String else {
            return .failure(AnnotationRejection("its target has no selector value"))
        }
        let locator: AudiobookLocator
        switch AudiobookLocator.parse(value) {
        case .success(let parsed): locator = parsed
        case .failure(let rejection): return .failure(rejection)
        }
        let body = object["body"] as? [String: Any] ?? [:]
        let device = (body[deviceKey] as? String).flatMap { $0.isEmpty || $0 == "null" ? nil : $0 }
        return .success(RemoteAnnotation(
            id: object["id"] as? String, motivation: motivation, source: source, device: device,
            deviceName: (body[deviceNameKey] as? String).flatMap { $0.isEmpty ? nil : $0 },
            time: (body[timeKey] as? String).flatMap { OPDSDate.parse($0) },
            chapter: body[chapterKey] as? String, name: bookmarkName(body: body, annotation: object), locator: locator))
    }

    /// The bookmark's name: the body's name member, a textual body's value, or the annotation's `bodyValue`.
    private static func bookmarkName(body: [String: Any], annotation: [String: Any]) -> String? {
        let candidates = [body[nameKey], body["value"], annotation["bodyValue"]]
        guard let name = candidates.lazy.compactMap({ $0 as? String }).first else { return nil }
        // A name is a line of a listing: one line, no control characters, at most 200 characters.
        let line = String(String.UnicodeScalarView(name.unicodeScalars.map {
            CharacterSet.controlCharacters.contains($0) ? " " : $0
        })).trimmingCharacters(in: .whitespaces)
        return line.isEmpty ? nil : String(line.prefix(200))
    }

    /// `2026-11-23T22:17:35Z` (see `OPDSDate.format`: no ICU in the player for it).
    static func timestamp(_ time: Date) -> String { OPDSDate.format(time) }

    /// An annotation document to post: the locator as a fragment selector on the work, with time, device and chapter.
    package static func document(
        motivation: String, source: String, locator: AudiobookLocator, device: String, chapter: String, time: Date,
        name: String? = nil
    ) -> Data {
        var body = [timeKey: Self.timestamp(time), deviceKey: device, chapterKey: chapter]
        if let name { body[nameKey] = name }
        let object: [String: Any] = [
            "@context": "http://www.w3.org/ns/anno.jsonld",
            "type": "Annotation",
            "motivation": motivation,
            "body": body,
            "target": [
                "source": source,
                "selector": ["type": "oa:FragmentSelector", "value": locator.jsonString],
            ],
        ]
        return SortedJSON.data(object) ?? Data()
    }

    /// The index in `hrefs` of the part a locator names: by exact href, href without query, URL path, last path
    /// component, then a trailing `:N` index (`urn:org.thepalaceproject:readingOrderItem:23`); version 1 by chapter.
    public static func partIndex(of locator: AudiobookLocator, in hrefs: [String]) -> Int? {
        guard let item = locator.readingOrderItem else {
            return locator.chapter.flatMap { hrefs.indices.contains($0) ? $0 : nil }
        }
        func path(_ text: String) -> String? {
            guard let path = URLComponents(string: text)?.path, !path.isEmpty else { return nil }
            return path.removingPercentEncoding ?? path
        }
        func last(_ text: String) -> String? {
            path(text).flatMap { $0.split(separator: "/").last.map(String.init) }
        }
        let matchers: [(String) -> Bool] = [
            { $0 == item },
            { PositionSync.withoutQuery($0) == PositionSync.withoutQuery(item) },
            { path($0) != nil && path($0) == path(item) },
            { last($0) != nil && last($0) == last(item) },
        ]
        for matches in matchers {
            if let index = hrefs.firstIndex(where: matches) { return index }
        }
        if let tail = item.split(separator: ":").last, tail.allSatisfy(\.isNumber), let index = Int(tail),
            hrefs.indices.contains(index)
        {
            return index
        }
        return nil
    }
}
