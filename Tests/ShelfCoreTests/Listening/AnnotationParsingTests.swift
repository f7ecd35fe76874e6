import Foundation
import Testing
@testable import ShelfCore

private let bookmarks = PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared/fixtures-real/bookmarks")

@Suite(.timeLimit(.minutes(5))) struct AnnotationParsingTests {
    @Test func versionTwoLocatorsAtTheTopLevelAndInsideALocatorMember() throws {
        let plain = try AudiobookLocator.parse(
            #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"part-1.mp3","readingOrderItemOffsetMilliseconds":25000}"#).get()
        #expect(plain == AudiobookLocator(readingOrderItem: "part-1.mp3", offsetMilliseconds: 25_000))
        let wrapped = try AudiobookLocator.parse(
            #"{"@type":"LocatorAudioBookTime","timeStamp":"2024-07-15T18:43:38Z","locator":{"@version":2,"readingOrderItemOffsetMilliseconds":1494666,"readingOrderItem":"a.mp3","@type":"LocatorAudioBookTime"}}"#).get()
        #expect(wrapped == AudiobookLocator(readingOrderItem: "a.mp3", offsetMilliseconds: 1_494_666))
    }

    /// On Linux an NSNumber 0 or 1 from JSONSerialization also casts to Bool: these offsets were refused.
    @Test(arguments: [0.0, 1, 2])
    func offsetsOfZeroOneAndTwoMillisecondsAreRead(_ offset: Double) throws {
        let number = Int(offset)
        let two = try AudiobookLocator.parse(
            #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a.mp3","readingOrderItemOffsetMilliseconds":\#(number)}"#).get()
        #expect(two == AudiobookLocator(readingOrderItem: "a.mp3", offsetMilliseconds: offset))
        let one = try AudiobookLocator.parse(
            #"{"@type":"LocatorAudioBookTime","chapter":\#(number),"startOffset":0,"time":\#(number),"part":0,"title":"x","audiobookID":"y","duration":1}"#).get()
        #expect(one.chapter == number && one.offsetMilliseconds == offset)
        let fraction = try AudiobookLocator.parse(
            #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a.mp3","readingOrderItemOffsetMilliseconds":\#(number).0}"#).get()
        #expect(fraction.offsetMilliseconds == offset)
    }

    /// Palace's apps wrap the position in a `locator` member; a server's dump has it wrapped twice, without an
    /// outer @type. Up to 8 levels are read.
    @Test(arguments: [1, 2, 8])
    func aPositionWrappedInLocatorMembersIsRead(_ levels: Int) throws {
        let inner = #"{"@version":2,"readingOrderItemOffsetMilliseconds":0,"readingOrderItem":"a.mp3","@type":"LocatorAudioBookTime"}"#
        var value = inner
        for level in 0..<levels {
            value = level % 2 == 0 ? #"{"@type":"LocatorAudioBookTime","timeStamp":"2024-07-15T18:43:38Z","locator":\#(value)}"#
                : #"{"locator":\#(value),"annotationId":""}"#
        }
        #expect(try AudiobookLocator.parse(value).get() == AudiobookLocator(readingOrderItem: "a.mp3", offsetMilliseconds: 0))
    }

    @Test func versionOneLocatorsUseTheChapterAndTime() throws {
        let locator = try AudiobookLocator.parse(
            #"{"@type":"LocatorAudioBookTime","chapter":2,"startOffset":1000,"time":872,"part":0,"title":"x","audiobookID":"y","duration":12000}"#).get()
        #expect(locator.chapter == 2 && locator.readingOrderItem == nil && locator.offsetMilliseconds == 1_872)
        #expect(RemoteAnnotation.partIndex(of: locator, in: ["a", "b", "c"]) == 2)
        #expect(RemoteAnnotation.partIndex(of: locator, in: ["a"]) == nil)
    }

    @Test(arguments: [
        (#"{"@type":"LocatorHrefProgression","progressWithinChapter":0.5}"#, "LocatorHrefProgression, not an audiobook position"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"#, "not valid JSON"),
        (#"[1,2]"#, "not a JSON object"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItemOffsetMilliseconds":5}"#, "no readingOrderItem"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":-5}"#,
         "its readingOrderItemOffsetMilliseconds -5 ms is negative"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":"5"}"#,
         "its readingOrderItemOffsetMilliseconds is not a number of milliseconds"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":true}"#,
         "its readingOrderItemOffsetMilliseconds is true, not a number of milliseconds"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":false}"#,
         "its readingOrderItemOffsetMilliseconds is false, not a number of milliseconds"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":1e20}"#,
         "its readingOrderItemOffsetMilliseconds 1e+20 ms is more than 1,000 hours"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":NaN}"#,
         "not valid JSON"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":Infinity}"#,
         "not valid JSON"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a"}"#, "has no readingOrderItemOffsetMilliseconds"),
        (#"{"@type":"LocatorAudioBookTime","chapter":0,"time":true}"#, "its time is true, not a number of milliseconds"),
        (#"{"@type":"LocatorAudioBookTime","chapter":0,"time":-1}"#, "its time -1 ms is negative"),
        (#"{"@type":"LocatorAudioBookTime","@version":3,"chapter":0,"time":1}"#, "of version 3, not 1 or 2"),
        (#"{"part":1}"#, "no @type"),
        (String(repeating: #"{"locator":"#, count: 9) + #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":0}"#
            + String(repeating: "}", count: 9), "nested more than 8 levels deep"),
        (String(repeating: #"{"locator":"#, count: 10_000) + "0" + String(repeating: "}", count: 10_000), "nested more than 8 levels deep"),
    ])
    func malformedLocatorsAreRejectedWithAReason(_ value: String, _ reason: String) {
        guard case .failure(let rejection) = AudiobookLocator.parse(value) else {
            Issue.record("accepted \(value)")
            return
        }
        #expect(rejection.reason.contains(reason), "\(rejection.reason)")
    }

    @Test func aReadingOrderItemResolvesByHrefPathLastComponentOrIndex() {
        let hrefs = [
            "http://127.0.0.1:9/audio/b/part-1.mp3?expires=1&sig=x", "http://127.0.0.1:9/audio/b/part-2.mp3?expires=1&sig=x",
            "http://127.0.0.1:9/audio/b/part-3.mp3?expires=1&sig=x",
        ]
        func index(_ item: String) -> Int? {
            RemoteAnnotation.partIndex(of: AudiobookLocator(readingOrderItem: item, offsetMilliseconds: 0), in: hrefs)
        }
        #expect(index(hrefs[1]) == 1)
        #expect(index("http://127.0.0.1:9/audio/b/part-2.mp3") == 1)
        #expect(index("http://other.example/audio/b/part-3.mp3?sig=y") == 2)
        #expect(index("/audio/b/part-3.mp3") == 2)
        #expect(index("part-1.mp3") == 0)
        #expect(index("urn:org.thepalaceproject:readingOrderItem:2") == 2)
        #expect(index("urn:org.thepalaceproject:readingOrderItem:3") == nil)
        #expect(index("elsewhere.mp3") == nil)
    }

    @Test func aPostedDocumentCarriesTheLocatorAsAString() throws {
        let data = RemoteAnnotation.document(
            motivation: Motivation.idling, source: "urn:uuid:1", locator: AudiobookLocator(readingOrderItem: "http://h/p/a.mp3", offsetMilliseconds: 1_500.4),
            device: "urn:uuid:d", chapter: "Chapter 1", time: Date(timeIntervalSince1970: 1_721_069_018))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let body = try #require(object["body"] as? [String: String])
        #expect(body["http://librarysimplified.org/terms/time"] == "2024-07-15T18:43:38Z")
        #expect(body["http://librarysimplified.org/terms/device"] == "urn:uuid:d")
        #expect(body["http://librarysimplified.org/terms/chapter"] == "Chapter 1")
        let annotation = try RemoteAnnotation.parse(object).get()
        #expect(annotation.locator == AudiobookLocator(readingOrderItem: "http://h/p/a.mp3", offsetMilliseconds: 1_500))
        #expect(annotation.source == "urn:uuid:1" && annotation.motivation == Motivation.idling)
        #expect(annotation.time == Date(timeIntervalSince1970: 1_721_069_018))
    }

    static func describe(_ locator: AudiobookLocator) -> String {
        (locator.readingOrderItem ?? "chapter \(locator.chapter ?? -1)") + " at \(Int(locator.offsetMilliseconds)) ms"
    }

    /// Every real document is either read or rejected with a reason a patron can understand.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: bookmarks.path), "../shared/fixtures-real is absent; real bookmarks skipped"))
    func everyRealDocumentIsReadOrRejectedWithAReason() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: bookmarks.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(!files.isEmpty)
        var outcomes: [String: String] = [:]
        for file in files {
            let data = try Data(contentsOf: bookmarks.appendingPathComponent(file))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(file)")
            if object["first"] != nil || object["motivation"] != nil {
                let items = try RemoteAnnotation.items(in: data).get()
                #expect(!items.isEmpty, "\(file)")
                for item in items {
                    let name = "\(file) \(RemoteAnnotation.name(of: item))"
                    switch RemoteAnnotation.parse(item) {
                    case .success(let annotation): outcomes[name] = "read \(Self.describe(annotation.locator))"
                    case .failure(let rejection):
                        #expect(!rejection.reason.isEmpty)
                        outcomes[name] = "rejected: \(rejection.reason)"
                    }
                }
            } else {
                let text = String(decoding: data, as: UTF8.self)
                switch AudiobookLocator.parse(text) {
                case .success(let locator): outcomes[file] = "read \(Self.describe(locator))"
                case .failure(let rejection): outcomes[file] = "rejected: \(rejection.reason)"
                }
            }
        }
        // Every file has its expectation: a new file fails here until it is given one.
        #expect(Set(files) == [
            "annotations-dump-20240716.json", "invalid-locator-1.json", "last-read-location-20240508-1.json",
            "last-read-location-20240508-2.json", "locatorSchema.json", "valid-bookmark-0.json", "valid-locator-5.json",
            "valid-locator-6.json",
        ])
        #expect(outcomes["valid-locator-5.json"] == "read chapter 32 at 93000 ms")
        #expect(outcomes["valid-locator-6.json"] == "read urn:org.thepalaceproject:readingOrderItem:23 at 25000 ms")
        // Ebook positions: a reading location in an EPUB chapter.
        #expect(outcomes["invalid-locator-1.json"] == "rejected: its locator is a LocatorHrefProgression, not an audiobook position")
        #expect(outcomes.first { $0.key.hasPrefix("valid-bookmark-0") }?.value
                == "rejected: its locator is a LocatorHrefProgression, not an audiobook position")
        // The Android app's own on-device record of where it was (`AudiobookLocationJSON`), never an annotation's
        // locator, and the locator schema itself: neither has a @type.
        #expect(outcomes["last-read-location-20240508-1.json"] == "rejected: its locator has no @type")
        #expect(outcomes["last-read-location-20240508-2.json"] == "rejected: its locator has no @type")
        #expect(outcomes["locatorSchema.json"] == "rejected: its locator has no @type")
        // The dump from a live server holds 14 annotations: all 12 audiobook positions are read (4 version 2 wrapped
        // in a `locator` member, 3 version 2 at the top level, 5 version 1), and the 2 page positions of PDFs
        // (LocatorPage) are refused with that reason, not skipped.
        let dump = outcomes.filter { $0.key.hasPrefix("annotations-dump") }
        #expect(dump.count == 14)
        #expect(dump.values.filter { $0.hasPrefix("read chapter 0 at ") }.count == 5)
        #expect(dump.values.filter { $0.hasPrefix("read ") && !$0.hasPrefix("read chapter") }.count == 7)
        #expect(dump.values.filter { $0 == "rejected: its locator is a LocatorPage, not an audiobook position" }.count == 2)
        let base = "annotations-dump-20240716.json https://gorgon.staging.palaceproject.io/a1qa-test/annotations/"
        #expect(dump[base + "17420"] == "read 3ba5bacd-43bb-40e7-a7a6-6d76ac9e11b1.MP3.mp3 at 1494666 ms")
        #expect(dump.values.contains("read 3ba5bacd-43bb-40e7-a7a6-6d76ac9e11b1.MP3.mp3 at 3647 ms"))
        #expect(dump.values.contains("read chapter 0 at 872 ms"))
    }
}
