import DemoLibrary
import Foundation
import Testing

/// A lendable work with this many copies, all on the shelf.
func lendable(_ number: Int, copies: Int = 1) -> DemoTitle {
    DemoTitle(
        id: "urn:uuid:00000000-0000-4000-8000-00000000c0\(String(format: "%02d", number))",
        title: "Circulating \(number)", authors: ["Someone"],
        license: .init(copiesTotal: copies, copiesAvailable: copies)
    )
}

/// Three patrons with empty shelves and a one-copy work first in the catalog.
let threePatrons = DemoConfiguration(
    otherPatrons: [DemoAccount(username: "other", password: "5678"), DemoAccount(username: "third", password: "9012")],
    startingShelf: false
)

func borrow(_ url: URL, _ id: String, _ credentials: [String: String] = basic(), method: String = "PUT") async throws -> RawResponse {
    try await HTTPTestClient.send(method, url.path("works/\(id)/borrow"), headers: credentials, body: nil)
}

func revoke(_ url: URL, _ id: String, _ credentials: [String: String] = basic()) async throws -> RawResponse {
    try await HTTPTestClient.send("PUT", url.path("loans/\(id)/revoke"), headers: credentials, body: nil)
}

/// The first value of an attribute in a document, e.g. `until`.
func attribute(_ name: String, in text: String) -> String? {
    guard let range = text.range(of: " \(name)=\"") else { return nil }
    return String(text[range.upperBound...].prefix { $0 != "\"" })
}

func date(_ text: String?) -> Date? { text.flatMap { ISO8601DateFormatter().date(from: $0) } }

@Suite(.timeLimit(.minutes(5))) struct CirculationTests {
    static let entryType = "application/atom+xml;type=entry;profile=opds-catalog"
    static let jane = "urn:uuid:7d3c0010-5a1e-4c6b-9f0e-d0c5e1f00010"
    static let moby = "urn:uuid:7d3c0004-5a1e-4c6b-9f0e-d0c5e1f00004"

    @Test func borrowingTakesACopyForTwentyOneDays() async throws {
        try await withServer { server, url in
            let page = await server.state.pageNumber(of: Self.jane)!
            let before = try await HTTPTestClient.get(url.page(page))
            let rootBefore = try await HTTPTestClient.get(url)
            let asked = Date()
            let response = try await borrow(url, Self.jane, method: "GET")
            let answered = Date()
            #expect(response.status == 201)
            #expect(response.header("Content-Type") == Self.entryType)
            let entry = try AtomSummary.parse(response.body)
            #expect(entry.rootName == "entry")
            // The loan's acquisition, and the sample every audiobook links.
            #expect(entry.acquisitionRels == ["http://opds-spec.org/acquisition", "http://opds-spec.org/acquisition/sample"])
            #expect(entry.availabilityStatuses == ["available"])
            #expect(entry.revokeLinks == 1)
            #expect(response.text.contains(url.absoluteString + "works/\(Self.jane)/fulfill"))
            #expect(response.text.contains(#"<opds:indirectAcquisition type="application/audiobook+json"/>"#))
            #expect(response.text.contains(#"<opds:copies total="3" available="2"/>"#))
            let until = try #require(date(attribute("until", in: response.text)))
            // 21 days from the moment the library lent it, which is between the asking and the answer (to the whole
            // second the feed writes).
            let loanDays: TimeInterval = 21 * 86_400
            #expect(until >= asked.addingTimeInterval(loanDays - 1) && until <= answered.addingTimeInterval(loanDays + 1),
                    "\(until) is not 21 days after the borrow (\(asked)…\(answered))")
            #expect(await server.state.title(id: Self.jane)?.license.copiesAvailable == 2)

            let after = try await HTTPTestClient.get(url.page(page))
            #expect(after.header("ETag") != before.header("ETag"))
            #expect(after.text.contains(#"<opds:copies total="3" available="2"/>"#))
            #expect(try await HTTPTestClient.get(url).header("ETag") != rootBefore.header("ETag"))
            // The work's anonymous entry shows the pool; the patron's shows the loan.
            let anonymous = try await HTTPTestClient.get(url.path("works/\(Self.jane)"))
            #expect(try AtomSummary.parse(anonymous.body).revokeLinks == 0)
            let own = try await HTTPTestClient.get(url.path("works/\(Self.jane)"), headers: basic())
            #expect(try AtomSummary.parse(own.body).revokeLinks == 1)
        }
    }

    @Test func noCopyMeansAHoldAtTheEndOfTheQueue() async throws {
        try await withServer { server, url in
            let response = try await borrow(url, Self.moby, basic("other", "5678"))
            #expect(response.status == 201)
            let entry = try AtomSummary.parse(response.body)
            #expect(entry.availabilityStatuses == ["reserved"])
            #expect(entry.holdPositions == ["4"])
            #expect(entry.acquisitionRels == ["http://opds-spec.org/acquisition/borrow", "http://opds-spec.org/acquisition/sample"])
            #expect(response.text.contains(#"<opds:holds total="4" position="4"/>"#))
            #expect(date(attribute("until", in: response.text)) != nil)
            #expect(await server.state.title(id: Self.moby)?.license.holdsTotal == 4)
            let page = await server.state.pageNumber(of: Self.moby)!
            #expect(try await HTTPTestClient.get(url.page(page)).text.contains(#"<opds:holds total="4"/>"#))
        }
    }

    @Test func returnPassesTheCopyToTheFirstHoldWhichBecomesReady() async throws {
        let work = lendable(1)
        try await withServer(threePatrons) { server, url in
            try await server.state.add(work, at: 0)
            #expect(try await borrow(url, work.id).status == 201)
            let hold = try await borrow(url, work.id, basic("other", "5678"))
            #expect(try AtomSummary.parse(hold.body).holdPositions == ["1"])

            let returning = Date()
            let returned = try await revoke(url, work.id)
            #expect(returned.status == 200)
            #expect(returned.header("Content-Type") == Self.entryType)
            let shown = try AtomSummary.parse(returned.body)
            #expect(shown.revokeLinks == 0)
            #expect(shown.acquisitionRels == ["http://opds-spec.org/acquisition/borrow", "http://opds-spec.org/acquisition/sample"])
            #expect(returned.text.contains(#"<opds:copies total="1" available="0"/>"#))

            let loans = try await HTTPTestClient.get(url.path("loans/"), headers: basic("other", "5678"))
            let feed = try AtomSummary.parse(loans.body)
            #expect(feed.availabilityStatuses == ["ready"])
            #expect(feed.holdPositions.isEmpty)
            #expect(feed.revokeLinks == 1)
            let until = try #require(date(attribute("until", in: loans.text)))
            // Three days from the return, which the library made between these two moments (the feed gives whole
            // seconds); a loaded test machine can take seconds over the requests.
            #expect(until >= returning.addingTimeInterval(3 * 86_400 - 1))
            #expect(until <= Date().addingTimeInterval(3 * 86_400 + 1))
            #expect(await server.state.patron(named: "other")?.loans.first?.isReady == true)

            // Someone else cannot take the copy set aside; its holder can.
            let third = try await borrow(url, work.id, basic("third", "9012"))
            #expect(try AtomSummary.parse(third.body).holdPositions == ["1"])
            let loan = try await borrow(url, work.id, basic("other", "5678"))
            #expect(loan.status == 201)
            #expect(try AtomSummary.parse(loan.body).availabilityStatuses == ["available"])
            let pool = try #require(await server.state.title(id: work.id)?.license)
            #expect(pool.copiesAvailable == 0 && pool.holdsTotal == 1)
        }
    }

    @Test func cancellingAHoldMovesThoseBehindUp() async throws {
        let work = lendable(2)
        try await withServer(threePatrons) { server, url in
            try await server.state.add(work)
            try await server.state.borrow(work.id, as: "demo")
            try await server.state.borrow(work.id, as: "other")
            try await server.state.borrow(work.id, as: "third")
            #expect(await server.state.patron(named: "third")?.loans.first?.position == 2)
            #expect(await server.state.title(id: work.id)?.license.holdsTotal == 2)

            let cancelled = try await revoke(url, work.id, basic("other", "5678"))
            #expect(cancelled.status == 200)
            #expect(try AtomSummary.parse(cancelled.body).revokeLinks == 0)
            let third = try await HTTPTestClient.get(url.path("loans/"), headers: basic("third", "9012"))
            #expect(try AtomSummary.parse(third.body).holdPositions == ["1"])
            #expect(third.text.contains(#"<opds:holds total="1" position="1"/>"#))
            #expect(await server.state.title(id: work.id)?.license.holdsTotal == 1)
        }
    }

    @Test func problemsForEveryRefusal() async throws {
        let configuration = DemoConfiguration(holdLimit: 1)
        try await withServer(configuration) { server, url in
            let loaned = try #require(await server.state.patron.loans.first { $0.kind == .loan }?.titleID)
            let held = try #require(await server.state.patron.loans.first { $0.kind == .hold }?.titleID)
            let cases: [(String, Int, String)] = [
                (loaned, 400, "loan-already-exists"),
                (held, 400, "hold-already-exists"),
                ("urn:uuid:7d3c0008-5a1e-4c6b-9f0e-d0c5e1f00008", 403, "hold-limit-reached"),
                ("urn:uuid:7d3c0001-5a1e-4c6b-9f0e-d0c5e1f00001", 404, "no-licenses"),
                ("urn:uuid:7d3c0014-5a1e-4c6b-9f0e-d0c5e1f00014", 404, "no-licenses"),
                ("urn:uuid:7d3c0013-5a1e-4c6b-9f0e-d0c5e1f00013", 403, "forbidden-by-policy"),
                ("urn:uuid:nothing-here", 404, "not-found"),
            ]
            for (id, status, type) in cases {
                let response = try await borrow(url, id)
                #expect(response.status == status, "\(id)")
                #expect(problemType(response) == "http://librarysimplified.org/terms/problem/" + type, "\(id)")
            }
            // Two loans to start with, a third is allowed, a fourth is not.
            #expect(try await borrow(url, Self.jane).status == 201)
            let limit = try await borrow(url, "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a")
            #expect(limit.status == 403)
            #expect(problemType(limit) == "http://librarysimplified.org/terms/problem/loan-limit-reached")
            #expect(await server.state.title(id: "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a")?.license.copiesAvailable == 3)

            let nothing = try await revoke(url, "urn:uuid:7d3c000a-5a1e-4c6b-9f0e-d0c5e1f0000a")
            #expect(nothing.status == 404)
            #expect(problemType(nothing) == "http://librarysimplified.org/terms/problem/no-active-loan")
        }
    }

    @Test func loansFeedShowsEachStateAndAnswers304() async throws {
        let work = lendable(3)
        try await withServer { server, url in
            try await server.state.add(work)
            try await server.state.borrow(work.id, as: "other")
            try await server.state.borrow(work.id, as: "demo")
            let response = try await HTTPTestClient.get(url.path("loans/"), headers: basic())
            let feed = try AtomSummary.parse(response.body)
            #expect(feed.entryIDs.count == 4)
            #expect(feed.availabilityStatuses == ["available", "available", "reserved", "reserved"])
            #expect(feed.holdPositions == ["2", "1"])
            #expect(feed.revokeLinks == 4)
            #expect(response.text.contains(url.absoluteString + "loans/\(work.id)/revoke"))
            #expect(response.text.contains(#"<opds:indirectAcquisition type="application/vnd.librarysimplified.bearer-token+json">"#))
            #expect(response.text.contains(#"<opds:indirectAcquisition type="application/epub+zip"/>"#))

            let tag = try #require(response.header("ETag"))
            let again = try await HTTPTestClient.get(url.path("loans/"), headers: basic().merging(["If-None-Match": tag]) { $1 })
            #expect(again.status == 304)
            try await server.state.revoke(work.id, as: "other")
            let changed = try await HTTPTestClient.get(url.path("loans/"), headers: basic().merging(["If-None-Match": tag]) { $1 })
            #expect(changed.status == 200)
            #expect(try AtomSummary.parse(changed.body).availabilityStatuses.last == "ready")

            await server.state.setEmptyLoans(true)
            let other = try await HTTPTestClient.get(url.path("loans/"), headers: basic("other", "5678"))
            #expect(try AtomSummary.parse(other.body).entryIDs.isEmpty)
        }
    }

    @Test func theClockEndsLoansAndLapsesReadyHolds() async throws {
        let work = lendable(4)
        try await withServer(threePatrons) { server, url in
            try await server.state.add(work)
            try await server.state.borrow(work.id, as: "demo")
            try await server.state.borrow(work.id, as: "other")
            try await server.state.borrow(work.id, as: "third")

            // The loan ends after 21 days: the copy waits for "other".
            let clock = try await HTTPTestClient.post(url.path("_demo/clock"), json: #"{"advanceSeconds": 1900800}"#)
            #expect(clock.status == 200)
            let demo = try await HTTPTestClient.get(url.path("loans/"), headers: basic())
            #expect(try AtomSummary.parse(demo.body).entryIDs.isEmpty)
            #expect(await server.state.patron(named: "other")?.loans.first?.isReady == true)
            #expect(await server.state.patron(named: "third")?.loans.first?.position == 1)

            // "other" lets three days pass: the copy moves on to "third", then back to the shelf.
            await server.state.advanceClock(by: 3 * 86_400 + 1)
            #expect(await server.state.patron(named: "other")?.loans.isEmpty == true)
            #expect(await server.state.patron(named: "third")?.loans.first?.isReady == true)
            await server.state.advanceClock(by: 3 * 86_400 + 1)
            let pool = try #require(await server.state.title(id: work.id)?.license)
            #expect(pool.copiesAvailable == 1 && pool.holdsTotal == 0)
            let page = await server.state.pageNumber(of: work.id)!
            #expect(try await HTTPTestClient.get(url.page(page)).text.contains(#"<opds:copies total="1" available="1"/>"#))
        }
    }

    @Test func faultSwitchesChangeNothing() async throws {
        try await withServer { server, url in
            await server.state.updateSwitches { $0.borrowFails = true }
            let failed = try await borrow(url, Self.jane)
            #expect(failed.status == 500)
            #expect(problemType(failed) == "http://librarysimplified.org/terms/problem/cannot-issue-loan")

            let html = try await HTTPTestClient.post(url.path("_demo/switches"), json: #"{"borrowHTML": true}"#)
            #expect(html.status == 200)
            let page = try await borrow(url, Self.jane)
            #expect(page.status == 200)
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(await server.state.title(id: Self.jane)?.license.copiesAvailable == 3)

            let loaned = try #require(await server.state.patron.loans.first?.titleID)
            await server.state.setSwitches(DemoSwitches(revokeFails: true))
            let refused = try await revoke(url, loaned)
            #expect(refused.status == 500)
            #expect(problemType(refused) == "http://librarysimplified.org/terms/problem/remote-integration-failed")
            #expect(await server.state.patron.loans.count == 3)
        }
    }

    @Test func adminRoutesActAsAnyPatron() async throws {
        try await withServer { server, url in
            let borrowed = try await HTTPTestClient.post(url.path("_demo/patrons/other/borrow/\(Self.jane)"), json: "")
            #expect(borrowed.status == 201)
            let result = try JSONDecoder.iso8601.decode(DemoCirculationResult.self, from: Data(borrowed.body))
            #expect(result.item?.kind == .loan)
            #expect(await server.state.patron(named: "other")?.loans.count == 1)

            let again = try await HTTPTestClient.post(url.path("_demo/patrons/other/borrow/\(Self.jane)"), json: "")
            #expect(problemType(again) == "http://librarysimplified.org/terms/problem/loan-already-exists")
            let nobody = try await HTTPTestClient.post(url.path("_demo/patrons/nobody/borrow/\(Self.jane)"), json: "")
            #expect(nobody.status == 404)

            let returned = try await HTTPTestClient.post(url.path("_demo/patrons/other/revoke/\(Self.jane)"), json: "")
            #expect(returned.status == 200)
            let patrons = try await HTTPTestClient.get(url.path("_demo/patrons"))
            let list = try #require(try JSONSerialization.jsonObject(with: Data(patrons.body)) as? [[String: Any]])
            #expect(list.compactMap { $0["username"] as? String } == ["demo", "other"])
            let title = try await HTTPTestClient.get(url.path("_demo/titles/\(Self.jane)"))
            #expect(title.text.contains(#""copiesAvailable" : 3"#))
            let clock = try await HTTPTestClient.get(url.path("_demo/clock"))
            #expect(clock.text.contains(#""offsetSeconds" : 0"#))
            #expect(try await HTTPTestClient.post(url.path("_demo/clock"), json: #"{"advanceSeconds": -1}"#).status == 400)
        }
    }
}

extension JSONDecoder {
    static var iso8601: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
