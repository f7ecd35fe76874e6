import DemoLibrary
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct CatalogFeedTests {
    @Test func crawlableChainReachesEveryTitleWithLinksAfterEntries() async throws {
        try await withServer { server, url in
            var next: URL? = url.path("crawlable")
            var ids: [String] = []
            var pages = 0
            while let page = next {
                let response = try await HTTPTestClient.get(page)
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "application/atom+xml;profile=opds-catalog;kind=acquisition")
                let feed = try AtomSummary.parse(response.body)
                #expect(feed.rootName == "feed")
                #expect(feed.linksAfterEntries)
                #expect(feed.link("self") != nil)
                #expect(feed.link("http://opds-spec.org/shelf") == url.absoluteString + "loans/")
                ids += feed.entryIDs
                pages += 1
                next = feed.link("next").flatMap(URL.init(string:))
                #expect(pages <= 10)
                if pages > 10 { break }
            }
            let count = await server.state.catalog.count
            let pageCount = await server.state.pageCount
            #expect(pages == pageCount)
            #expect(pages == (count + 4) / 5)
            #expect(ids.count == count)
            #expect(Set(ids).count == ids.count)
        }
    }

    @Test func builtInCatalogHasEveryKindOfTitle() async throws {
        let titles = try DemoCatalog.builtIn().titles
        #expect((25...30).contains(titles.count))
        #expect(titles.contains { $0.license.openAccess && $0.medium == .audiobook })
        #expect(titles.contains { $0.license.openAccess && $0.medium == .ebook })
        #expect(titles.contains { !$0.license.openAccess && $0.license.copiesAvailable > 0 && $0.price == nil })
        #expect(titles.contains { !$0.license.openAccess && $0.license.copiesAvailable == 0 && $0.license.holdsTotal > 0 })
        #expect(titles.filter(\.draft).count == 1)
        #expect(titles.filter { $0.price != nil }.count == 1)
        // Single files with their chapters inside, offered with no circulation markup (as calibre does).
        #expect(Set(titles.compactMap(\.singleFile?.format)) == Set(SingleFile.Format.allCases))
        #expect(titles.compactMap(\.singleFile).allSatisfy { $0.chapters.count >= 3 })
        #expect(titles.allSatisfy { $0.id.hasPrefix("urn:uuid:") || $0.id.hasPrefix("urn:isbn:") })
        #expect(Set(titles.map(\.id)).count == titles.count)
    }

    @Test func feedsCarryPalaceCirculationMarkup() async throws {
        try await withServer(.init(pageSize: 100)) { _, url in
            let response = try await HTTPTestClient.get(url.page(1))
            let feed = try AtomSummary.parse(response.body)
            #expect(feed.link("next") == nil)
            #expect(feed.drafts == 1)
            #expect(feed.prices == ["4.99"])
            #expect(feed.acquisitionRels.contains("http://opds-spec.org/acquisition/open-access"))
            #expect(feed.acquisitionRels.contains("http://opds-spec.org/acquisition/borrow"))
            #expect(feed.acquisitionRels.contains("http://opds-spec.org/acquisition/buy"))
            #expect(feed.availabilityStatuses.contains("unavailable"))
            let text = response.text
            for needle in [
                "xmlns:bibframe=\"http://bibframe.org/vocab/\"", "xmlns:app=\"http://www.w3.org/2007/app\"",
                "<opds:indirectAcquisition type=\"application/vnd.librarysimplified.bearer-token+json\">",
                "<opds:copies total=\"1\" available=\"0\"/>", "<opds:holds total=\"3\"/>",
                "rel=\"http://www.w3.org/ns/oa#annotationService\"", "rel=\"alternate\"",
                "<bibframe:distribution bibframe:ProviderName=\"LibriVox\"/>", "<contributor opf:role=\"nrt\">",
                "covers/urn:uuid:", "one&apos;s mind",
            ] {
                #expect(text.contains(needle), "missing \(needle)")
            }
        }
    }

    @Test func unchangedPageAnswers304ToEitherValidator() async throws {
        try await withServer { server, url in
            let first = try await HTTPTestClient.get(url.page(2))
            let etag = try #require(first.header("ETag"))
            let lastModified = try #require(first.header("Last-Modified"))
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))

            let byTag = try await HTTPTestClient.get(url.page(2), headers: ["If-None-Match": etag])
            #expect(byTag.status == 304)
            #expect(byTag.body.isEmpty)
            #expect(byTag.header("ETag") == etag)

            let byDate = try await HTTPTestClient.get(url.page(2), headers: ["If-Modified-Since": lastModified])
            #expect(byDate.status == 304)

            let stale = try await HTTPTestClient.get(url.page(2), headers: ["If-None-Match": "\"0000\""])
            #expect(stale.status == 200)
            let older = try await HTTPTestClient.get(
                url.page(2), headers: ["If-Modified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"]
            )
            #expect(older.status == 200)

            #expect(await server.state.notModifiedCount("/crawlable?page=2") == 2)
            #expect(await server.state.conditionalCount("/crawlable?page=2") == 4)
            #expect(await server.state.requestCount("/crawlable?page=2") == 5)
            #expect(await server.state.requestCount("/crawlable") == 5)
        }
    }

    @Test func gzipWhenAskedAndIdentityOtherwise() async throws {
        try await withServer { _, url in
            let plain = try await HTTPTestClient.get(url.page(1))
            #expect(plain.header("Content-Encoding") == nil)
            let zipped = try await HTTPTestClient.get(url.page(1), headers: ["Accept-Encoding": "deflate, gzip;q=0.8"])
            #expect(zipped.header("Content-Encoding") == "gzip")
            #expect(zipped.header("Vary") == "Accept-Encoding")
            #expect(zipped.body.starts(with: [0x1f, 0x8b]))
            #expect(zipped.body.count < plain.body.count)
            #expect(try gunzip(zipped.body) == plain.body)
            #expect(zipped.header("ETag") != plain.header("ETag"))
            // Either representation's tag revalidates the page.
            let revalidated = try await HTTPTestClient.get(url.page(1), headers: [
                "Accept-Encoding": "gzip", "If-None-Match": try #require(plain.header("ETag")),
            ])
            #expect(revalidated.status == 304)
            let refused = try await HTTPTestClient.get(url.page(1), headers: ["Accept-Encoding": "gzip;q=0"])
            #expect(refused.header("Content-Encoding") == nil)
        }
    }

    @Test func entryRouteServesOneEntryDocument() async throws {
        try await withServer { server, url in
            let title = await server.state.catalog[0]
            let response = try await HTTPTestClient.get(url.path("works/\(title.id)"))
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/atom+xml;type=entry;profile=opds-catalog")
            let entry = try AtomSummary.parse(response.body)
            #expect(entry.rootName == "entry")
            #expect(entry.entryTitles == [title.title])
            #expect(response.text.contains("<id>\(title.id)</id>"))
            #expect(response.text.contains("rel=\"alternate\""))
            let missing = try await HTTPTestClient.get(url.path("works/urn:uuid:nope"))
            #expect(missing.status == 404)
            #expect(missing.header("Content-Type") == "application/api-problem+json")
            let beyond = try await HTTPTestClient.get(url.page(99))
            #expect(beyond.status == 404)
        }
    }

    @Test func rootFeedAuthenticationDocumentAndCovers() async throws {
        try await withServer { server, url in
            let root = try AtomSummary.parse(try await HTTPTestClient.get(url).body)
            #expect(!root.entryIDs.isEmpty)
            #expect(root.link("self") == url.absoluteString)
            #expect(root.link("start") == url.absoluteString)
            #expect(root.link("http://opds-spec.org/crawlable") == url.absoluteString + "crawlable")
            #expect(root.link("http://opds-spec.org/shelf") == url.absoluteString + "loans/")
            let authURL = try #require(root.link("http://opds-spec.org/auth/document").flatMap(URL.init(string:)))

            let auth = try await HTTPTestClient.get(authURL)
            #expect(auth.header("Content-Type") == "application/vnd.opds.authentication.v1.0+json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(auth.body)) as? [String: Any])
            #expect(json["id"] as? String == authURL.absoluteString)
            let flows = try #require(json["authentication"] as? [[String: Any]])
            #expect(flows.first?["type"] as? String == "http://opds-spec.org/auth/basic")

            let id = await server.state.catalog[0].id
            let cover = try await HTTPTestClient.get(url.path("covers/\(id).png"))
            #expect(cover.status == 200)
            #expect(cover.header("Content-Type") == "image/png")
            #expect(cover.body.starts(with: [0x89, 0x50, 0x4e, 0x47]))
        }
    }

    @Test func textIsEscaped() async throws {
        try await withServer { server, url in
            try await server.state.add(DemoTitle(
                id: "urn:uuid:00000000-0000-4000-8000-0000000e5c4e",
                title: #"Fish & <Chips> "quoted" 'single'"#,
                authors: ["A. <Author>"],
                summary: "<p>Bold & brave</p>\u{1}"
            ), at: 0)
            let response = try await HTTPTestClient.get(url.page(1))
            let feed = try AtomSummary.parse(response.body)
            #expect(feed.entryTitles.first == #"Fish & <Chips> "quoted" 'single'"#)
            #expect(response.text.contains("Fish &amp; &lt;Chips&gt; &quot;quoted&quot; &apos;single&apos;"))
        }
    }

    @Test func generatedCatalogIsDeterministicAndAboutTwoKilobytesAnEntry() async throws {
        let configuration = DemoConfiguration(pageSize: 200, generatedEntries: 1_000)
        let (first, firstURL) = try await withServer(configuration) { _, url in (try await HTTPTestClient.get(url.page(3)), url) }
        let (second, secondURL) = try await withServer(configuration) { _, url in (try await HTTPTestClient.get(url.page(3)), url) }
        // Links are absolute, so only the port may differ between two servers.
        #expect(first.text.replacingOccurrences(of: firstURL.absoluteString, with: "/")
            == second.text.replacingOccurrences(of: secondURL.absoluteString, with: "/"))
        let feed = try AtomSummary.parse(first.body)
        #expect(feed.entryIDs.count == 200)
        let perEntry = first.body.count / 200
        #expect((1_500...3_000).contains(perEntry), "\(perEntry) bytes an entry")
        #expect(feed.availabilityStatuses.count == 200)
    }
}
