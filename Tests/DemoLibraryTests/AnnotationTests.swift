import DemoLibrary
import Foundation
import ShelfSpawn
import Testing

/// An annotation document as shelf's player posts it: a Palace version 2 audiobook locator.
func annotationJSON(
    workID: String, motivation: String = DemoAnnotation.Motivation.idling.rawValue,
    locator: String? = nil, item: String = "part-1.mp3", offset: Int = 25_000,
    device: String = "urn:uuid:c83db5b1-9130-4b86-93ea-634b00235c7c"
) -> String {
    let locator = locator ?? #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"\#(item)","readingOrderItemOffsetMilliseconds":\#(offset)}"#
    let document: [String: Any] = [
        "@context": "http://www.w3.org/ns/anno.jsonld",
        "type": "Annotation",
        "motivation": motivation,
        "body": [
            "http://librarysimplified.org/terms/time": "2024-07-15T18:43:38Z",
            "http://librarysimplified.org/terms/device": device,
        ],
        "target": [
            "source": workID,
            "selector": ["type": "oa:FragmentSelector", "value": locator],
        ],
    ]
    let data = try! JSONSerialization.data(withJSONObject: document)
    return String(decoding: data, as: UTF8.self)
}

func jsonObject(_ response: RawResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
}

/// The items of an annotation collection.
func annotationItems(_ response: RawResponse) throws -> [[String: Any]] {
    let collection = try jsonObject(response)
    let first = try #require(collection["first"] as? [String: Any])
    return try #require(first["items"] as? [[String: Any]])
}

func locator(of item: [String: Any]) throws -> [String: Any] {
    let target = try #require(item["target"] as? [String: Any])
    let selector = try #require(target["selector"] as? [String: Any])
    let value = try #require(selector["value"] as? String)
    return try #require(try JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any])
}

/// The demo patron's audiobook and ebook loans, and the held work.
func startingShelf(_ server: DemoLibraryServer) async throws -> (audiobook: String, ebook: String, held: String) {
    let loans = await server.state.patrons[0].loans
    let titles = await server.state.catalog.titles
    let onLoan = loans.filter { $0.kind == .loan }.map(\.titleID)
    let audiobook = try #require(onLoan.first { id in titles.first { $0.id == id }?.medium == .audiobook })
    let ebook = try #require(onLoan.first { $0 != audiobook })
    let held = try #require(loans.first { $0.kind == .hold }?.titleID)
    return (audiobook, ebook, held)
}

func postAnnotation(_ url: URL, _ json: String, headers: [String: String] = basic()) async throws -> RawResponse {
    try await HTTPTestClient.send("POST", url.path("annotations/"),
                                  headers: headers.merging(["Content-Type": "application/ld+json"]) { $1 },
                                  body: Array(json.utf8))
}

@Suite(.timeLimit(.minutes(5))) struct AnnotationTests {
    static let annotationType = #"application/ld+json; profile="http://www.w3.org/ns/anno.jsonld""#

    @Test func postingIdlingThenGettingShowsOne() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            let empty = try await HTTPTestClient.get(url.path("annotations/"), headers: basic())
            #expect(empty.status == 200)
            #expect(empty.header("Content-Type") == Self.annotationType)
            #expect(try jsonObject(empty)["total"] as? Int == 0)

            let posted = try await postAnnotation(url, annotationJSON(workID: shelf.audiobook, offset: 1_494_666))
            #expect(posted.status == 200)
            #expect(posted.header("Content-Type") == Self.annotationType)
            let stored = try jsonObject(posted)
            let id = try #require(stored["id"] as? String)
            #expect(id.hasPrefix(url.absoluteString + "annotations/"))
            #expect(Int(id.dropFirst((url.absoluteString + "annotations/").count)) != nil)
            #expect(stored["motivation"] as? String == "http://librarysimplified.org/terms/annotation/idling")

            let response = try await HTTPTestClient.get(url.path("annotations/"), headers: basic())
            let collection = try jsonObject(response)
            #expect(collection["@context"] as? [String] == ["http://www.w3.org/ns/anno.jsonld", "http://www.w3.org/ns/ldp.jsonld"])
            #expect(collection["id"] as? String == url.absoluteString + "annotations/")
            #expect(collection["type"] as? [String] == ["BasicContainer", "AnnotationCollection"])
            #expect(collection["total"] as? Int == 1)
            let first = try #require(collection["first"] as? [String: Any])
            #expect(first["type"] as? String == "AnnotationPage")
            #expect(first["id"] as? String == url.absoluteString + "annotations/")
            let items = try annotationItems(response)
            #expect(items.count == 1)
            #expect(items[0]["id"] as? String == id)
            #expect(items[0]["type"] as? String == "Annotation")
            let body = try #require(items[0]["body"] as? [String: Any])
            #expect(body["http://librarysimplified.org/terms/device"] as? String == "urn:uuid:c83db5b1-9130-4b86-93ea-634b00235c7c")
            #expect(body["http://librarysimplified.org/terms/time"] as? String == "2024-07-15T18:43:38Z")
            let target = try #require(items[0]["target"] as? [String: Any])
            #expect(target["source"] as? String == shelf.audiobook)
            let position = try locator(of: items[0])
            #expect(position["@type"] as? String == "LocatorAudioBookTime")
            #expect(position["readingOrderItem"] as? String == "part-1.mp3")
            #expect(position["readingOrderItemOffsetMilliseconds"] as? Int == 1_494_666)
        }
    }

    @Test func postingIdlingAgainReplacesIt() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            let first = try jsonObject(try await postAnnotation(url, annotationJSON(workID: shelf.audiobook, offset: 1000)))
            let second = try jsonObject(try await postAnnotation(url, annotationJSON(workID: shelf.audiobook, item: "part-2.mp3", offset: 2000)))
            // Palace updates the patron's one idling annotation in place.
            #expect(first["id"] as? String == second["id"] as? String)
            let items = try annotationItems(try await HTTPTestClient.get(url.path("annotations/"), headers: basic()))
            #expect(items.count == 1)
            let position = try locator(of: try #require(items.first))
            #expect(position["readingOrderItem"] as? String == "part-2.mp3")
            #expect(position["readingOrderItemOffsetMilliseconds"] as? Int == 2000)
            #expect(await server.state.annotations(for: "demo").map(\.offsetMilliseconds) == [2000])
        }
    }

    @Test func bookmarksAccumulateAndFilterByWork() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            let bookmark = DemoAnnotation.Motivation.bookmarking.rawValue
            for offset in [1000, 2000, 2000] {
                let response = try await postAnnotation(url, annotationJSON(workID: shelf.audiobook, motivation: bookmark, offset: offset))
                #expect(response.status == 200)
            }
            _ = try await postAnnotation(url, annotationJSON(workID: shelf.audiobook))
            _ = try await postAnnotation(url, annotationJSON(workID: shelf.ebook, motivation: bookmark))
            let all = try annotationItems(try await HTTPTestClient.get(url.path("annotations/"), headers: basic()))
            // The same bookmark posted twice is kept once, as Palace does.
            #expect(all.count == 4)
            #expect(all.filter { $0["motivation"] as? String == bookmark }.count == 3)

            let workURL = url.path("annotations/" + shelf.audiobook.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            let response = try await HTTPTestClient.get(workURL, headers: basic())
            #expect(response.status == 200)
            let collection = try jsonObject(response)
            #expect(collection["total"] as? Int == 3)
            #expect((collection["id"] as? String)?.hasSuffix("annotations/" + shelf.audiobook) == true)
            // The feeds' per-entry link keeps the id's colons.
            let linked = try await HTTPTestClient.get(url.path("annotations/" + shelf.audiobook), headers: basic())
            #expect(try jsonObject(linked)["total"] as? Int == 3)
            let sources = try annotationItems(response).compactMap { ($0["target"] as? [String: Any])?["source"] as? String }
            #expect(sources == Array(repeating: shelf.audiobook, count: 3))
        }
    }

    @Test func deletingAnAnnotation() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            let bookmark = DemoAnnotation.Motivation.bookmarking.rawValue
            let stored = try jsonObject(try await postAnnotation(url, annotationJSON(workID: shelf.audiobook, motivation: bookmark)))
            let id = try #require(stored["id"] as? String)
            let single = try await HTTPTestClient.get(try #require(URL(string: id)), headers: basic())
            #expect(single.status == 200)
            #expect(try jsonObject(single)["@context"] as? String == "http://www.w3.org/ns/anno.jsonld")

            let deleted = try await HTTPTestClient.send("DELETE", try #require(URL(string: id)), headers: basic(), body: nil)
            #expect(deleted.status == 200)
            #expect(try jsonObject(try await HTTPTestClient.get(url.path("annotations/"), headers: basic()))["total"] as? Int == 0)

            let again = try await HTTPTestClient.send("DELETE", try #require(URL(string: id)), headers: basic(), body: nil)
            #expect(again.status == 404)
            #expect(problemType(again) == "http://librarysimplified.org/terms/problem/no-annotation")
            let unknown = try await HTTPTestClient.send("DELETE", url.path("annotations/9999"), headers: basic(), body: nil)
            #expect(unknown.status == 404)
            #expect(problemType(unknown) == "http://librarysimplified.org/terms/problem/no-annotation")
        }
    }

    @Test func annotationsNeedSignIn() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            #expect(try await HTTPTestClient.get(url.path("annotations/")).status == 401)
            #expect(try await postAnnotation(url, annotationJSON(workID: shelf.audiobook), headers: [:]).status == 401)
            #expect(try await HTTPTestClient.send("DELETE", url.path("annotations/1"), headers: [:], body: nil).status == 401)
            #expect(try await HTTPTestClient.get(url.path("annotations/"), headers: basic("demo", "9999")).status == 401)
            #expect(await server.state.annotations(for: "demo").isEmpty)

            let issued = try await token(url)
            let posted = try await postAnnotation(url, annotationJSON(workID: shelf.audiobook), headers: bearer(issued))
            #expect(posted.status == 200)
            let listed = try await HTTPTestClient.get(url.path("annotations/"), headers: bearer(issued))
            #expect(try annotationItems(listed).count == 1)
        }
    }

    @Test func annotationsAreEachPatronsOwn() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            let stored = try jsonObject(try await postAnnotation(url, annotationJSON(workID: shelf.audiobook)))
            let idString = try #require(stored["id"] as? String)
            let id = try #require(URL(string: idString))
            let theirs = try await HTTPTestClient.get(url.path("annotations/"), headers: basic("other", "5678"))
            #expect(try jsonObject(theirs)["total"] as? Int == 0)
            let delete = try await HTTPTestClient.send("DELETE", id, headers: basic("other", "5678"), body: nil)
            #expect(delete.status == 404)
            // The other patron has no loan of the work.
            let post = try await postAnnotation(url, annotationJSON(workID: shelf.audiobook), headers: basic("other", "5678"))
            #expect(problemType(post) == "http://librarysimplified.org/terms/problem/invalid-annotation-target")
        }
    }

    @Test func invalidAnnotationsAreRefused() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            let problem = "http://librarysimplified.org/terms/problem/"
            let cases: [(String, String)] = [
                (annotationJSON(workID: "urn:uuid:00000000-0000-0000-0000-000000000000"), "invalid-annotation-target"),
                (annotationJSON(workID: shelf.held), "invalid-annotation-target"),
                (annotationJSON(workID: shelf.audiobook, motivation: "http://www.w3.org/ns/oa#highlighting"), "invalid-annotation-motivation"),
                (annotationJSON(workID: shelf.audiobook, locator: "not json"), "invalid-annotation-format"),
                (annotationJSON(workID: shelf.audiobook, locator: #"{"@type":"LocatorHrefProgression","progressWithinChapter":0.5}"#), "invalid-annotation-format"),
                (annotationJSON(workID: shelf.audiobook, locator: #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a.mp3","readingOrderItemOffsetMilliseconds":"25000"}"#), "invalid-annotation-format"),
                (annotationJSON(workID: shelf.audiobook, locator: #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":7,"readingOrderItemOffsetMilliseconds":25000}"#), "invalid-annotation-format"),
                (annotationJSON(workID: shelf.audiobook, locator: #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a.mp3"}"#), "invalid-annotation-format"),
                (annotationJSON(workID: shelf.audiobook, locator: #"{"@type":"LocatorAudioBookTime","@version":2,"readingOrderItem":"a.mp3","readingOrderItemOffsetMilliseconds":-5}"#), "invalid-annotation-format"),
                ("{not json", "invalid-annotation-format"),
                (#"{"motivation":"http://librarysimplified.org/terms/annotation/idling"}"#, "invalid-annotation-target"),
            ]
            for (json, type) in cases {
                let response = try await postAnnotation(url, json)
                #expect(response.status == 400, "\(json)")
                #expect(response.header("Content-Type") == "application/api-problem+json")
                #expect(problemType(response) == problem + type, "\(json)")
            }
            #expect(await server.state.annotations(for: "demo").isEmpty)
        }
    }

    @Test func palaceAppLocatorsAndOpenAccessWorksAreAccepted() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            // The wrapped form Palace's apps post (as in a real annotations dump).
            let wrapped = #"{"@type":"LocatorAudioBookTime","timeStamp":"2024-07-15T18:43:38Z","locator":{"@version":2,"readingOrderItemOffsetMilliseconds":1494666,"readingOrderItem":"x.MP3.mp3","@type":"LocatorAudioBookTime"},"annotationId":""}"#
            let response = try await postAnnotation(url, annotationJSON(workID: shelf.audiobook, locator: wrapped))
            #expect(response.status == 200)
            let items = try annotationItems(try await HTTPTestClient.get(url.path("annotations/"), headers: basic()))
            let selector = try #require((items.first?["target"] as? [String: Any])?["selector"] as? [String: Any])
            #expect(selector["value"] as? String == wrapped)
            #expect(await server.state.annotations(for: "demo").first?.offsetMilliseconds == 1_494_666)

            let openAccess = try #require(await server.state.catalog.titles.first { $0.license.openAccess && !$0.draft })
            #expect(try await postAnnotation(url, annotationJSON(workID: openAccess.id)).status == 200)
        }
    }

    @Test(arguments: MalformedAnnotation.allCases)
    func malformedAnnotationSwitch(_ kind: MalformedAnnotation) async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            _ = try await postAnnotation(url, annotationJSON(workID: shelf.audiobook))
            await server.state.setMalformedAnnotation(kind)
            let response = try await HTTPTestClient.get(url.path("annotations/"), headers: basic())
            #expect(response.status == 200)
            let items = try annotationItems(response)
            #expect(items.count == 2)
            #expect(try jsonObject(response)["total"] as? Int == 2)
            let target = items[0]["target"] as? [String: Any]
            let value = (target?["selector"] as? [String: Any])?["value"] as? String
            switch kind {
            case .missingTarget:
                #expect(target == nil)
            case .invalidLocator:
                #expect(target?["source"] as? String == shelf.audiobook)
                #expect(try locator(of: items[0])["@type"] as? String == "LocatorHrefProgression")
            case .unparseableLocator:
                #expect(value != nil)
                #expect((try? JSONSerialization.jsonObject(with: Data((value ?? "").utf8))) == nil)
            case .hugeOffset, .offsetPastTheEnd, .negativeOffset, .nanOffset, .wrongHref, .otherBook, .deepLocator, .hugeBody:
                #expect(value?.contains("LocatorAudioBookTime") == true)
                #expect((target?["source"] as? String == shelf.audiobook) == (kind != .otherBook))
            }
            #expect(try locator(of: items[1])["readingOrderItem"] as? String == "part-1.mp3")
            // The switch serves one malformed collection, then turns itself off.
            #expect(await server.state.switches.malformedAnnotation == nil)
            let next = try await HTTPTestClient.get(url.path("annotations/"), headers: basic())
            #expect(try annotationItems(next).count == 1)
        }
    }

    @Test func malformedAnnotationSwitchOverAdminRoute() async throws {
        try await withServer { server, url in
            let response = try await HTTPTestClient.post(url.path("_demo/switches"), json: #"{"malformedAnnotation":"invalidLocator"}"#)
            #expect(response.status == 200)
            #expect(await server.state.switches.malformedAnnotation == .invalidLocator)
        }
    }

    @Test func anotherDeviceInProcess() async throws {
        try await withServer { server, url in
            let shelf = try await startingShelf(server)
            let state = server.state
            let time = Date(timeIntervalSince1970: 1_721_069_018)
            let posted = try await state.postAnnotation(
                username: "demo", workID: shelf.audiobook, motivation: .idling, readingOrderItem: "part-3.mp3",
                offsetMilliseconds: 61_000, device: "urn:uuid:0ther-device", time: time
            )
            #expect(posted.device == "urn:uuid:0ther-device")
            #expect(posted.time == "2024-07-15T18:43:38Z")
            let id = await state.annotationID(posted)
            #expect(id == url.absoluteString + "annotations/\(posted.number)")

            let items = try annotationItems(try await HTTPTestClient.get(url.path("annotations/"), headers: basic()))
            #expect(items.count == 1)
            #expect(items.first?["id"] as? String == id)
            let position = try locator(of: try #require(items.first))
            #expect(position["@version"] as? Int == 2)
            #expect(position["readingOrderItem"] as? String == "part-3.mp3")
            #expect(position["readingOrderItemOffsetMilliseconds"] as? Int == 61_000)

            // What the client posts is seen in process, and the other device's position is replaced.
            _ = try await postAnnotation(url, annotationJSON(workID: shelf.audiobook, offset: 70_000))
            _ = try await state.postAnnotation(username: "demo", workID: shelf.audiobook, motivation: .bookmarking,
                                               readingOrderItem: "part-1.mp3", offsetMilliseconds: 5)
            let stored = await state.annotations(for: "demo", workID: shelf.audiobook)
            #expect(stored.map(\.motivation) == [.idling, .bookmarking])
            #expect(stored.first?.offsetMilliseconds == 70_000)
            #expect(stored.first?.number == posted.number)
            #expect(await state.annotations(for: "demo", workID: shelf.ebook).isEmpty)

            await #expect(throws: DemoAnnotationError.self) {
                try await state.postAnnotation(username: "demo", workID: shelf.held, motivation: .idling,
                                               readingOrderItem: "part-1.mp3", offsetMilliseconds: 0)
            }
            await #expect(throws: DemoAnnotationError.notFound("No annotation 9999 for this patron.")) {
                try await state.deleteAnnotation(username: "demo", number: 9999)
            }
            try await state.deleteAnnotation(username: "demo", number: posted.number)
            #expect(await state.annotations(for: "demo").count == 1)
        }
    }
}
