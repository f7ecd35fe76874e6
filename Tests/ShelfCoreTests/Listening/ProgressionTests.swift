import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

private let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
private let longParts = DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: 40)

/// Progression documents beside annotations: the OPDS Progression draft's and Readium's shapes, against the demo's
/// endpoint, under the same merge rule.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ProgressionTests {
    @Test func bothShapesAreRead() throws {
        let draft = try RemoteProgression.parse(Data("""
            {"modified": "2026-11-28T01:02:03Z", "device": {"id": "urn:uuid:kobo", "name": "Kobo"}, "progression": 0.25,
             "references": ["https://example.org/b/part-3.mp3#t=849.25"]}
            """.utf8)).get()
        #expect(draft.deviceID == "urn:uuid:kobo" && draft.deviceName == "Kobo" && draft.totalProgression == 0.25)
        #expect(draft.href == "https://example.org/b/part-3.mp3" && draft.seconds == 849.25)
        // As Codex answers: snake_case, a page as the position, an empty device.
        let codex = try RemoteProgression.parse(Data("""
            {"modified": "2026-11-28T01:02:03.123456Z", "device": {"id": "", "name": ""},
             "locator": {"title": "Page 2", "href": "/opds/bin/c/1/page/2", "type": "image/jpeg",
                         "locations": {"position": 3, "progression": 0.5, "total_progression": 0.5}}}
            """.utf8)).get()
        #expect(codex.deviceID == nil && codex.position == 3 && codex.progression == 0.5 && codex.totalProgression == 0.5)
        #expect(codex.seconds == nil)
        #expect(RemoteProgression.split("a.mp3#t=npt:10.5,20").seconds == 10.5)
        #expect(RemoteProgression.split("a.mp3#t=1:02:03").seconds == 3723)
        for bad in [#"[]"#, #"{"device": {}}"#, #"{"modified": "2026-11-28T01:02:03Z", "progression": 1.5}"#,
                    #"{"modified": "2026-11-28T01:02:03Z", "references": ["a#t=-4"]}"#] {
            #expect(throws: AnnotationRejection.self) { try RemoteProgression.parse(Data(bad.utf8)).get() }
        }
        // What shelf writes reads back the same.
        let written = RemoteProgression.document(
            modified: Date(timeIntervalSince1970: 1_800_000_000), device: "urn:uuid:me", deviceName: "this computer",
            href: "part-2.mp3", type: nil, title: "Chapter 2", part: 1, seconds: 12.5, partProgression: 0.3,
            totalProgression: 0.4)
        let back = try RemoteProgression.parse(written).get()
        #expect(back.href == "part-2.mp3" && back.seconds == 12.5 && back.position == 2 && back.totalProgression == 0.4)
        #expect(back.deviceID == "urn:uuid:me" && back.modified == Date(timeIntervalSince1970: 1_800_000_000))
    }

    private func ready() async throws -> (ListeningFixture, EditionRef, [String]) {
        let fixture = try await ListeningFixture(configuration: longParts)
        try await fixture.download()
        return (fixture, try fixture.rowID(sherlock), try fixture.partHrefs(sherlock))
    }

    private func save(_ fixture: ListeningFixture, part: Int, seconds: Double, hrefs: [String], ago: Double) throws {
        let edition = try fixture.rowID(sherlock)
        try fixture.store.savePosition(
            ListeningPosition(part: part, seconds: seconds, readingOrderItem: hrefs[part], device: try fixture.store.deviceID(),
                              deviceName: nil, at: Date().addingTimeInterval(-ago)), of: edition, percent: nil, finished: false)
    }

    /// Another device's document, as a Kobo would put it.
    private func otherPuts(_ fixture: ListeningFixture, href: String, seconds: Double, ago: Double) async {
        let modified = OPDSDate.format(Date().addingTimeInterval(-ago))
        let body = #"{"modified": "\#(modified)", "device": {"id": "urn:uuid:kobo", "name": "Kobo"}, "references": ["\#(href)#t=\#(seconds)"]}"#
        await fixture.state.setProgression(
            DemoProgression(modified: Date().addingTimeInterval(-ago), body: Data(body.utf8)), username: "demo", workID: sherlock)
    }

    @Test func aPushWritesTheDocumentAndAnotherDevicesNewerOneIsHeld() async throws {
        let (fixture, edition, hrefs) = try await ready()
        try save(fixture, part: 1, seconds: 12.5, hrefs: hrefs, ago: 120)
        #expect(try await fixture.push().pushed == 1)
        let kept = try #require(await fixture.state.progression(username: "demo", workID: sherlock))
        let mine = try RemoteProgression.parse(kept.body).get()
        #expect(mine.deviceID == (try fixture.store.deviceID()) && mine.seconds == 12.5 && mine.position == 2)
        #expect(mine.href.map { hrefs[1].hasSuffix($0) || $0 == hrefs[1] } == true, "\(String(describing: mine.href))")
        // Read back: this device's own, so nothing is offered.
        #expect(try fixture.positionSync().pull(edition) == nil)

        // A Kobo puts 2:20 later; this computer saves 0:55 after it and pushes: held, the Kobo's document kept.
        await otherPuts(fixture, href: hrefs[3], seconds: 20, ago: 60)
        try save(fixture, part: 1, seconds: 15, hrefs: hrefs, ago: 10)
        let held = try await fixture.push()
        #expect(held.pending == 1 && held.failure?.hasPrefix("held back: Kobo saved a newer place") == true, "\(held)")
        let still = try RemoteProgression.parse(try #require(await fixture.state.progression(username: "demo", workID: sherlock)).body).get()
        #expect(still.deviceID == "urn:uuid:kobo")
        let offer = try #require(try fixture.store.openOffer(of: edition))
        #expect(offer.part == 3 && offer.seconds == 20 && offer.deviceName == "Kobo")
        await fixture.sync.stop()
    }

    /// A stale `modified` is answered 409: the document is read, and when its place is this device's the position is
    /// put again, as of now.
    @Test func aConflictIsReadMergedAndPutOnceMore() async throws {
        let (fixture, edition, hrefs) = try await ready()
        try save(fixture, part: 1, seconds: 12.5, hrefs: hrefs, ago: 300)
        #expect(try await fixture.push().pushed == 1)
        try save(fixture, part: 1, seconds: 20, hrefs: hrefs, ago: 120)
        // The Kobo put a place 5 s from this computer's, after it saved: the same place, but a later modified.
        await otherPuts(fixture, href: hrefs[1], seconds: 25, ago: 60)
        #expect(try await fixture.push() == PushReport(pushed: 1, pending: 0))
        let kept = try RemoteProgression.parse(try #require(await fixture.state.progression(username: "demo", workID: sherlock)).body).get()
        #expect(kept.deviceID == (try fixture.store.deviceID()) && kept.seconds == 20)
        #expect(kept.modified > Date().addingTimeInterval(-30))
        #expect(try fixture.store.openOffer(of: edition) == nil)
        await fixture.sync.stop()
    }
}
