import DemoLibrary
import Foundation
import Testing
@testable import ShelfCore

/// ODL templated links (`odl:tlink`): expanded per RFC 6570 when followed, a plain link preferred when there is one.
@Suite(.timeLimit(.minutes(5))) struct TemplatedLinkTests {
    /// The examples of RFC 6570, section 1.2 and 3.2, that use strings.
    @Test func expandsAsRFC6570Says() {
        let values = ["var": "value", "hello": "Hello World!", "path": "/foo/bar", "x": "1024", "y": "768", "empty": ""]
        let cases: [(String, String)] = [
            ("{var}", "value"), ("{hello}", "Hello%20World%21"), ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"), ("here?ref={+path}", "here?ref=/foo/bar"), ("X{#var}", "X#value"),
            ("map?{x,y}", "map?1024,768"), ("{x,hello,y}", "1024,Hello%20World%21,768"), ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="), ("?fixed=yes{&x}", "?fixed=yes&x=1024"), ("X{.var}", "X.value"),
            ("{/var,x}/here", "/value/1024/here"), ("{;x,y,empty}", ";x=1024;y=768;empty"), ("{var:3}", "val"),
            ("{?undefined}", ""), ("/fulfill{?id,patron_id}", "/fulfill"), ("{undefined}x", "x"),
        ]
        for (template, expected) in cases {
            #expect(URITemplate.expand(template, values) == expected, "\(template)")
        }
        #expect(URITemplate.isTemplate("https://example.org/loan{?id}"))
        #expect(!URITemplate.isTemplate("https://example.org/works/1/fulfill"))
    }

    @Test func aLoanWhoseFulfilLinkIsATemplateIsDownloadedThroughItsExpansion() async throws {
        try await SyncFixture.with { fixture in
            try await fixture.state.prepareAudio()
            await fixture.state.setFulfilLinks(.templated)
            _ = try fixture.refresh(download: false)
            try fixture.signIn()
            _ = try fixture.refresh(download: false)
            let library = try fixture.store.library(named: "demo")
            let run = try DownloadRun(
                store: fixture.store, home: fixture.test.home, library: library, configuration: HTTPConfiguration(),
                attended: true)
            let outcome = try run.named(try fixture.edition("urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"))
            guard case .downloaded = outcome.result else {
                Issue.record("not downloaded: \(outcome.line)")
                return
            }
            let targets = await fixture.state.stats.requests.keys.filter { $0.contains("/fulfill") }
            let expanded = try #require(targets.first { $0.contains("/fulfill?id=urn%3Auuid%3A7d3c0002") }, "\(targets)")
            #expect(expanded.contains("&patron_id=") && expanded.contains("&client_id="), "\(expanded)")
            // ODL 1.0 requires a checkout id: a UUID of this request's own.
            #expect(expanded.range(of: "&checkout_id=[0-9a-f-]{36}&", options: .regularExpression) != nil, "\(expanded)")
            // The card number is never in the link: the patron's id is a digest of it.
            #expect(!expanded.contains("demo") && !targets.contains { $0.contains("%7B") || $0.contains("{") }, "\(targets)")
        }
    }

    @Test func aLoanWithBothATemplatedAndAPlainFulfilLinkIsDownloadedThroughThePlainOne() async throws {
        try await SyncFixture.with { fixture in
            try await fixture.state.prepareAudio()
            // The template comes first in the feed: taking the first link would follow it.
            await fixture.state.setFulfilLinks(.templatedAndPlain)
            _ = try fixture.refresh(download: false)
            try fixture.signIn()
            _ = try fixture.refresh(download: false)
            let edition = try fixture.edition("urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002")
            // Both links were stored: which one is followed is the download's choice.
            let hrefs = try fixture.store.loanAcquisitions(of: edition).map(\.href).filter { $0.contains("/fulfill") }
            #expect(hrefs.count == 2 && hrefs.filter(URITemplate.isTemplate).count == 1, "\(hrefs)")
            await fixture.state.resetStats()
            let library = try fixture.store.library(named: "demo")
            let run = try DownloadRun(
                store: fixture.store, home: fixture.test.home, library: library, configuration: HTTPConfiguration(),
                attended: true)
            let outcome = try run.named(edition)
            guard case .downloaded = outcome.result else {
                Issue.record("not downloaded: \(outcome.line)")
                return
            }
            #expect(try fixture.store.summary(of: edition).state == .downloaded)
            // One request to the plain link; none to the template, whose expansion always has a query (`?id=…`).
            let fulfils = await fixture.state.stats.requests.filter { $0.key.contains("/fulfill") }
            #expect(fulfils.count == 1 && fulfils.first?.key.hasSuffix("/fulfill") == true && fulfils.first?.value == 1,
                    "\(fulfils)")
            #expect(!fulfils.keys.contains { $0.contains("?") || $0.contains("%7B") || $0.contains("{") }, "\(fulfils)")
        }
    }
}
