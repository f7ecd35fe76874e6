import Foundation

import ShelfCore

/// Annotation lists and the audiobook locators inside them.
enum AnnotationsFuzz {
    static let hrefs = [
        "https://library.example/works/1/part-1.mp3", "https://library.example/works/1/part-2.mp3?sig=a",
        "urn:org.thepalaceproject:readingOrderItem:2",
    ]

    static func annotations(_ data: Data) {
        guard case .success(let items) = RemoteAnnotation.items(in: data) else { return }
        let limit = InputLimit.annotationsPerResponse.value
        require(items.count <= limit, "\(items.count) annotations accepted, over the limit \(limit)")
        for item in items {
            _ = RemoteAnnotation.name(of: item)
            guard case .success(let annotation) = RemoteAnnotation.parse(item) else { continue }
            require(!annotation.source.isEmpty, "an annotation was accepted with an empty source")
            if let name = annotation.name {
                require(!name.isEmpty && name.count <= 200, "a bookmark name is empty or over 200 characters")
                require(!name.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) },
                        "a bookmark name \(name.debugDescription) holds a control character")
            }
            check(annotation.locator)
            // The annotation as shelf posts it reads back as the same position.
            guard annotation.locator.readingOrderItem != nil else { continue }
            let posted = RemoteAnnotation.document(
                motivation: annotation.motivation, source: annotation.source, locator: annotation.locator,
                device: "urn:uuid:fuzz", chapter: "1", time: Date(timeIntervalSince1970: 1_800_000_000),
                name: annotation.name)
            guard case .success(let again) = RemoteAnnotation.items(in: posted), again.count == 1,
                case .success(let reread) = RemoteAnnotation.parse(again[0])
            else {
                require(false, "an annotation shelf posts does not read back: \(String(decoding: posted, as: UTF8.self))")
                return
            }
            require(reread.source == annotation.source, "the posted annotation's source changed")
            require(reread.name == annotation.name, "the posted annotation's name changed")
            require(reread.locator.readingOrderItem == annotation.locator.readingOrderItem,
                    "the posted annotation's readingOrderItem changed")
        }
    }

    /// Progression documents (the OPDS Progression draft's and Readium's): what is taken is a place in a book, and
    /// the document shelf writes for it reads back as the same place.
    static func progressions(_ data: Data) {
        guard case .success(let progression) = RemoteProgression.parse(data) else { return }
        if let seconds = progression.seconds {
            require(seconds.isFinite && seconds >= 0 && seconds < 3_600_000, "a progression's time \(seconds) is out of range")
        }
        for value in [progression.progression, progression.totalProgression] {
            if let value { require(value.isFinite && (0...1).contains(value), "a progression \(value) is out of 0…1") }
        }
        if let position = progression.position { require(position >= 1, "a progression's position \(position) is under 1") }
        let part = max(0, min((progression.position ?? 1) - 1, 10_000))
        let written = RemoteProgression.document(
            modified: progression.modified, device: "urn:uuid:fuzz", deviceName: "fuzz", href: "part.mp3", type: nil,
            title: nil, part: part, seconds: progression.seconds ?? 0, partProgression: progression.progression,
            totalProgression: progression.totalProgression)
        guard case .success(let reread) = RemoteProgression.parse(written) else {
            require(false, "a progression shelf writes does not read back: \(String(decoding: written, as: UTF8.self))")
            return
        }
        require(reread.position == part + 1, "the written progression's position changed")
        // Written to the hundredth: what reads back is the time rounded so, whatever the decimal digits' binary error.
        let seconds = progression.seconds ?? 0
        let expected: Double? = Double(String(format: "%.2f", seconds))
        let read: Double = reread.seconds ?? -1
        require(read == expected && abs(read - seconds) <= 0.005 + 1e-9,
                "the written progression's time changed: \(seconds) read back as \(read)")
        require(abs(reread.modified.timeIntervalSince(progression.modified)) < 1, "the written progression's modified changed")
    }

    static func locators(_ data: Data) {
        guard case .success(let locator) = AudiobookLocator.parse(String(decoding: data, as: UTF8.self)) else { return }
        check(locator)
    }

    static func check(_ locator: AudiobookLocator) {
        let offset = locator.offsetMilliseconds
        require(offset.isFinite && offset >= 0 && offset <= AudiobookLocator.maxOffsetMilliseconds,
                "a locator's offset \(offset) ms is out of range")
        require((locator.readingOrderItem == nil) != (locator.chapter == nil),
                "a locator has both or neither of readingOrderItem and chapter")
        if let chapter = locator.chapter { require(chapter >= 0, "a locator's chapter \(chapter) is negative") }
        if let index = RemoteAnnotation.partIndex(of: locator, in: hrefs) {
            require(hrefs.indices.contains(index), "partIndex \(index) is outside the reading order")
        }
        // The locator as shelf writes it reads back as the same position, to the millisecond.
        guard let item = locator.readingOrderItem else { return }
        guard case .success(let back) = AudiobookLocator.parse(locator.jsonString) else {
            require(false, "the locator shelf writes does not read back: \(locator.jsonString)")
            return
        }
        require(back.readingOrderItem == item, "the written locator's readingOrderItem changed")
        require(back.offsetMilliseconds == offset.rounded(), "the written locator's offset changed")
    }
}
