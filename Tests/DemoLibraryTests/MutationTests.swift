import DemoLibrary
import Foundation
import Testing

@Suite(.timeLimit(.minutes(5))) struct MutationTests {
    /// Entity tags of every page, in order.
    func entityTags(_ url: URL, pages: Int) async throws -> [String] {
        var tags: [String] = []
        for page in 1...pages {
            tags.append(try await HTTPTestClient.get(url.page(page)).header("ETag") ?? "")
        }
        return tags
    }

    @Test func touchingATitleChangesOnlyItsPage() async throws {
        try await withServer { server, url in
            let before = try await entityTags(url, pages: 5)
            let id = await server.state.catalog[12].id
            #expect(await server.state.pageNumber(of: id) == 3)
            try await server.state.touch(id: id)
            let after = try await entityTags(url, pages: 5)
            #expect(after[2] != before[2])
            #expect(after.enumerated().filter { $0.offset != 2 }.map(\.element)
                == before.enumerated().filter { $0.offset != 2 }.map(\.element))
            let updated = try #require(await server.state.title(id: id)?.updated)
            let page = try await HTTPTestClient.get(url.page(3))
            #expect(page.header("Last-Modified") == httpDate(updated))
        }
    }

    @Test func changingTheAcquisitionHrefChangesThePage() async throws {
        try await withServer { server, url in
            let before = try await entityTags(url, pages: 5)
            let id = await server.state.catalog[6].id
            try await server.state.setAcquisitionHref(id: id, href: "elsewhere/borrow")
            let page = try await HTTPTestClient.get(url.page(2))
            #expect(page.header("ETag") != before[1])
            #expect(page.text.contains("href=\"\(url.absoluteString)elsewhere/borrow\""))
            #expect(try await HTTPTestClient.get(url.page(1)).header("ETag") == before[0])
            // A client holding the old validators must not be told nothing changed.
            let conditional = try await HTTPTestClient.get(url.page(2), headers: ["If-None-Match": before[1]])
            #expect(conditional.status == 200)
        }
    }

    @Test func removingShiftsLaterPagesOnly() async throws {
        try await withServer { server, url in
            let before = try await entityTags(url, pages: 5)
            let id = await server.state.catalog[11].id
            try await server.state.remove(id: id)
            #expect(await server.state.title(id: id) == nil)
            let after = try await entityTags(url, pages: 5)
            #expect(after[0] == before[0] && after[1] == before[1])
            #expect(after[2] != before[2] && after[3] != before[3] && after[4] != before[4])
            await #expect(throws: DemoLibraryError.unknownTitle(id)) { try await server.state.remove(id: id) }
        }
    }

    @Test func addingAppendsAndCanOpenANewPage() async throws {
        try await withServer { server, url in
            let count = await server.state.catalog.count
            let pagesBefore = await server.state.pageCount
            for number in 0..<(5 - count % 5 + 1) {
                try await server.state.add(DemoTitle(
                    id: "urn:uuid:00000000-0000-4000-8000-0000000add0\(number)",
                    title: "Added \(number)", authors: ["New Author"]
                ))
            }
            #expect(await server.state.pageCount == pagesBefore + 1)
            let lastBefore = try AtomSummary.parse(try await HTTPTestClient.get(url.page(pagesBefore)).body)
            #expect(lastBefore.link("next") != nil)
            let last = try AtomSummary.parse(try await HTTPTestClient.get(url.page(pagesBefore + 1)).body)
            #expect(last.entryTitles.last?.hasPrefix("Added") == true)
            #expect(last.link("next") == nil)
        }
    }

    @Test func mutateFractionIsSeededAndInvalidatesExactlyThosePages() async throws {
        let configuration = DemoConfiguration(pageSize: 100, generatedEntries: 2_000)
        let (first, second) = try await withServer(configuration) { server, url in
            let before = try await entityTags(url, pages: 20)
            let mutation = try await server.state.mutate(fraction: 0.005, seed: 42)
            #expect(mutation.changedIDs.count == 10)
            #expect(Set(mutation.changedPages).count == mutation.changedPages.count)
            #expect(mutation.changedPages.count >= 8)
            let after = try await entityTags(url, pages: 20)
            for page in 1...20 {
                #expect((before[page - 1] != after[page - 1]) == mutation.changedPages.contains(page), "page \(page)")
            }
            for id in mutation.hrefChangedIDs {
                #expect(try #require(await server.state.title(id: id)).acquisitionHref?.contains("revision=") == true)
            }
            return (mutation, try await server.state.mutate(fraction: 0, seed: 42))
        }
        #expect(second.changedIDs.isEmpty)
        let again = try await withServer(configuration) { server, _ in try await server.state.mutate(fraction: 0.005, seed: 42) }
        #expect(again.changedIDs == first.changedIDs)
        #expect(again.hrefChangedIDs == first.hrefChangedIDs)
    }
}

private func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}
