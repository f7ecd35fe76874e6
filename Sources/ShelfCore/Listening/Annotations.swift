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

    /// Reads a selector value: version 2 at the top level or inside a `locator` member (as Palace's apps post it),
    /// or version 1 (`chapter`, `time`, `startOffset`). Ebook locators and anything malformed are rejected.
    public static func parse(_ value: String) -> Result<AudiobookLocator, AnnotationRejection> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(value.utf8), options: [.fragmentsAllowed]) else {
            return .failure(AnnotationRejection("its locator is not valid JSON"))
        }
        guard var locator = object as? [String: Any] else { return .failure(AnnotationRejection("its locator is not a JSON object")) }
        if let inner = locator["locator"] as? [String: Any] { locator = inner }
        guard let type = locator["@type"] as? String else { return .failure(AnnotationRejection("its locator has no @type")) }
        guard type == "LocatorAudioBookTime" else {
            return .failure(AnnotationRejection("its locator is a \(type), not an audiobook position"))
        }
        let version = (locator["@version"] as? NSNumber)?.intValue
        if version == 2 || locator["readingOrderItem"] != nil {
            guard let item = locator["readingOrderItem"] as? String, !item.isEmpty else {
                return .failure(AnnotationRejection("its locator has no readingOrderItem"))
            }
            guard let offset = milliseconds(locator["readingOrderItemOffsetMilliseconds"]) else {
                return .failure(AnnotationRejection("its locator has no usable readingOrderItemOffsetMilliseconds"))
            }
            return .success(AudiobookLocator(readingOrderItem: item, offsetMilliseconds: offset))
        }
        // Version 1: `time` is the offset into the chapter, which starts `startOffset` into its file.
        guard let chapter = (locator["chapter"] as? NSNumber)?.intValue, chapter >= 0 else {
            return .failure(AnnotationRejection("its version 1 locator has no chapter"))
        }
        guard let time = milliseconds(locator["time"]) else {
            return .failure(AnnotationRejection("its version 1 locator has no usable time"))
        }
        return .success(AudiobookLocator(chapter: chapter, offsetMilliseconds: time + (milliseconds(locator["startOffset"]) ?? 0)))
    }

    private static func milliseconds(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, !(value is Bool) else { return nil }
        let double = number.doubleValue
        return double.isFinite && double >= 0 && double < 9e15 ? double : nil
    }

    /// The locator as Palace's apps write it (version 2), as compact JSON.
    var jsonString: String {
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
    public var locator: AudiobookLocator

    static let timeKey = "http://librarysimplified.org/terms/time"
    static let deviceKey = "http://librarysimplified.org/terms/device"
    static let deviceNameKey = "http://librarysimplified.org/terms/deviceName"
    static let chapterKey = "http://librarysimplified.org/terms/chapter"
    static let mediaType = #"application/ld+json; profile="http://www.w3.org/ns/anno.jsonld""#

    /// The items of an annotation collection (or page, or plain array); one annotation alone is a list of one.
    public static func items(in data: Data) -> Result<[Any], AnnotationRejection> {
        guard let json = try? JSONSerialization.jsonObject(with: data) else {
            return .failure(AnnotationRejection("the annotation list is not valid JSON"))
        }
        if let list = json as? [Any] { return .success(list) }
        guard let object = json as? [String: Any] else { return .failure(AnnotationRejection("the annotation list is not a JSON object")) }
        if let first = object["first"] as? [String: Any] { return .success(first["items"] as? [Any] ?? []) }
        if let items = object["items"] as? [Any] { return .success(items) }
        if object["motivation"] != nil || object["target"] != nil { return .success([object]) }
        if (object["total"] as? NSNumber)?.intValue == 0 { return .success([]) }
        return .failure(AnnotationRejection("the document is neither an annotation collection nor an annotation"))
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
            chapter: body[chapterKey] as? String, locator: locator))
    }

    /// An annotation document to post: the locator as a fragment selector on the work, with time, device and chapter.
    static func document(
        motivation: String, source: String, locator: AudiobookLocator, device: String, chapter: String, time: Date
    ) -> Data {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        formatter.timeZone = TimeZone(identifier: "UTC")
        let object: [String: Any] = [
            "@context": "http://www.w3.org/ns/anno.jsonld",
            "type": "Annotation",
            "motivation": motivation,
            "body": [timeKey: formatter.string(from: time), deviceKey: device, chapterKey: chapter],
            "target": [
                "source": source,
                "selector": ["type": "oa:FragmentSelector", "value": locator.jsonString],
            ],
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
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
