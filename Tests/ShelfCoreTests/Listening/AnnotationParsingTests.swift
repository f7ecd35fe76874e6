import Foundation
import Testing
@testable import ShelfCore

private let bookmarks = PackageRoot.url.deletingLastPathComponent().appendingPathComponent("shared/fixtures-real/bookmarks")

@Suite struct AnnotationParsingTests {
    @Test func versionTwoLocatorsAtTheTopLevelAndInsideALocatorMember() throws {
        let plain = try AudiobookLocator.parse(
            #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"part-1.mp3","readingOrderItemOffsetMilliseconds":25000}"#).get()
        #expect(plain == AudiobookLocator(readingOrderItem: "part-1.mp3", offsetMilliseconds: 25_000))
        let wrapped = try AudiobookLocator.parse(
            #"{"@type":"LocatorAudioBookTime","timeStamp":"2024-07-15T18:43:38Z","locator":{"@version":2,"readingOrderItemOffsetMilliseconds":1494666,"readingOrderItem":"a.mp3","@type":"LocatorAudioBookTime"}}"#).get()
        #expect(wrapped == AudiobookLocator(readingOrderItem: "a.mp3", offsetMilliseconds: 1_494_666))
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
         "no usable readingOrderItemOffsetMilliseconds"),
        (#"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a","readingOrderItemOffsetMilliseconds":"5"}"#,
         "no usable readingOrderItemOffsetMilliseconds"),
        (#"{"part":1}"#, "no @type"),
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
                    case .success(let annotation): outcomes[name] = "read \(annotation.locator)"
                    case .failure(let rejection):
                        #expect(!rejection.reason.isEmpty)
                        outcomes[name] = "rejected: \(rejection.reason)"
                    }
                }
            } else {
                let text = String(decoding: data, as: UTF8.self)
                switch AudiobookLocator.parse(text) {
                case .success(let locator): outcomes[file] = "read \(locator)"
                case .failure(let rejection): outcomes[file] = "rejected: \(rejection.reason)"
                }
            }
        }
        // The audiobook positions are read; the ebook ones and the legacy and schema documents are not.
        #expect(outcomes["valid-locator-5.json"]?.hasPrefix("read") == true)
        #expect(outcomes["valid-locator-6.json"]?.hasPrefix("read") == true)
        #expect(outcomes["invalid-locator-1.json"] == "rejected: its locator is a LocatorHrefProgression, not an audiobook position")
        #expect(outcomes["last-read-location-20240508-1.json"] == "rejected: its locator has no @type")
        #expect(outcomes["locatorSchema.json"] == "rejected: its locator has no @type")
        let dump = outcomes.filter { $0.key.hasPrefix("annotations-dump") }
        #expect(dump.count == 14)
        #expect(dump.values.filter { $0.hasPrefix("read") }.count == 12)
        #expect(dump.values.filter { $0.contains("LocatorPage, not an audiobook position") }.count == 2)
        #expect(outcomes.first { $0.key.hasPrefix("valid-bookmark-0") }?.value.contains("LocatorHrefProgression") == true)
    }
}
