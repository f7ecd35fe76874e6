import Foundation
import Testing
@testable import ShelfCore

/// Search links become URLs: OpenSearch 1.1 templates, RFC 6570 URI templates, and the description documents
/// that hold OpenSearch templates.
@Suite(.timeLimit(.minutes(5))) struct SearchTemplateTests {
    @Test(arguments: [
        // calibre writes the template in the link itself, the terms in the path.
        ("/opds/search/{searchTerms}?library_id=lib", "ben sample", "/opds/search/ben%20sample?library_id=lib"),
        // Palace's description: the terms in a query parameter of a URL that has others.
        ("http://h/lib/search/?entrypoint=Audio&q={searchTerms}", "dickens", "http://h/lib/search/?entrypoint=Audio&q=dickens"),
        // Optional parameters are left out with their names; required ones get sensible values.
        ("http://h/s?q={searchTerms}&page={startPage?}&lang={language?}", "a&b=c", "http://h/s?q=a%26b%3Dc"),
        ("http://h/s?q={searchTerms}&n={count}&i={startIndex}&p={startPage}&l={language}&e={inputEncoding}",
         "x", "http://h/s?q=x&n=50&i=1&p=1&l=*&e=UTF-8"),
        ("http://h/s/{time:start?}/x?q={searchTerms}&geo={geo:box?}", "naïve café", "http://h/s//x?q=na%C3%AFve%20caf%C3%A9"),
        ("http://h/s?{startPage?}&q={searchTerms}&u={unknown}", "x", "http://h/s?q=x&u="),
    ])
    func openSearchTemplatesAreFilled(template: String, terms: String, expected: String) {
        #expect(SearchTemplate.openSearch(template, terms: terms) == expected)
    }

    @Test func openSearchOffsetsComeFromTheDescription() {
        #expect(SearchTemplate.openSearch("http://h/s?q={searchTerms}&p={startPage}&i={startIndex}", terms: "t",
                                          indexOffset: 0, pageOffset: 0) == "http://h/s?q=t&p=0&i=0")
    }

    @Test(arguments: [
        ("http://h/search{?query}", "the moon", "http://h/search?query=the%20moon"),
        ("http://h/search{?query,title,author}", "x/y", "http://h/search?query=x%2Fy"),
        ("http://h/search?lang=en{&query}", "ü", "http://h/search?lang=en&query=%C3%BC"),
        ("http://h/search/{query}", "a b", "http://h/search/a%20b"),
        ("http://h{/query}", "a/b", "http://h/a%2Fb"),
        ("http://h/{+query}", "a/b?c", "http://h/a/b?c"),
        ("http://h/s{?query:3}", "abcdef", "http://h/s?query=abc"),
        ("http://h/s{?query}", "", "http://h/s?query="),
        ("http://h/s{;query}", "", "http://h/s;query"),
        ("http://h/s{?other}", "x", "http://h/s"),
    ])
    func uriTemplatesExpandAsRFC6570Says(template: String, terms: String, expected: String) {
        #expect(SearchTemplate.expand(template, ["query": terms]) == expected)
    }

    @Test func aDescriptionsCatalogTemplateIsChosenOverPagesAndSuggestions() throws {
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
              <ShortName>Library</ShortName>
              <Url type="text/html" template="http://h/find?q={searchTerms}"/>
              <Url type="application/atom+xml;profile=opds-catalog" rel="suggestions" template="http://h/suggest?q={searchTerms}"/>
              <Url type="application/opds+json" template="http://h/opds2?q={searchTerms}"/>
              <Url type="application/atom+xml" template="http://h/atom?q={searchTerms}" indexOffset="0"/>
              <Url type="application/atom+xml;profile=opds-catalog;kind=acquisition" template="http://h/opds?q={searchTerms}&amp;p={startPage?}" pageOffset="0"/>
            </OpenSearchDescription>
            """
        let description = try #require(try OpenSearchDescription.parse(Data(document.utf8), url: nil))
        #expect(description.templates.count == 5)
        let chosen = try #require(description.feedTemplate)
        #expect(chosen.template == "http://h/opds?q={searchTerms}&p={startPage?}")
        #expect(chosen.pageOffset == 0)
        let onlyPages = try #require(try OpenSearchDescription.parse(Data("""
            <OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/"><Url type="text/html" template="http://h/?q={searchTerms}"/></OpenSearchDescription>
            """.utf8), url: nil))
        #expect(onlyPages.feedTemplate == nil)
    }

    @Test func otherDocumentsAreNotDescriptions() throws {
        #expect(try OpenSearchDescription.parse(Data("<feed xmlns=\"http://www.w3.org/2005/Atom\"/>".utf8), url: nil) == nil)
        #expect(throws: CatalogError.self) { try OpenSearchDescription.parse(Data("<OpenSearchDescription><Url".utf8), url: nil) }
    }
}

/// How `shelf browse` paths name the items of a page.
@Suite(.timeLimit(.minutes(5))) struct CatalogPathTests {
    private let items = [
        CatalogItem(number: 1, kind: .navigation, title: "By Newest", href: "/n"),
        CatalogItem(number: 2, kind: .navigation, title: "By Authors", href: "/a", count: 12),
        CatalogItem(number: 3, kind: .lane, title: "Fiction", href: "/f"),
        CatalogItem(number: 4, kind: .facet, title: "All", href: "/all", group: "Formats", active: true),
        CatalogItem(number: 5, kind: .facet, title: "All ages", href: "/ages", group: "Audience"),
    ]

    @Test func locationsAreURLsOrPathsOfLevels() {
        #expect(CatalogLocation(nil) == .path([]))
        #expect(CatalogLocation(" ") == .path([]))
        #expect(CatalogLocation("2/1/") == .path(["2", "1"]))
        #expect(CatalogLocation("By Authors / A") == .path(["By Authors", "A"]))
        #expect(CatalogLocation("HTTPS://h/opds?x=1") == .url("HTTPS://h/opds?x=1"))
    }

    @Test func aLevelIsANumberATitleOrTheStartOfOne() throws {
        #expect(try CatalogBrowser.item("2", in: items, at: "").title == "By Authors")
        #expect(try CatalogBrowser.item("by authors", in: items, at: "").number == 2)
        #expect(try CatalogBrowser.item("fic", in: items, at: "").number == 3)
        // A whole title wins over titles it begins.
        #expect(try CatalogBrowser.item("all", in: items, at: "").number == 4)
    }

    @Test func aLevelThatNamesNothingOrSeveralIsRefused() {
        #expect(throws: CatalogError.noSuchItem(segment: "6", at: "2", count: 5)) {
            try CatalogBrowser.item("6", in: items, at: "2")
        }
        #expect(throws: CatalogError.noSuchItem(segment: "0", at: "", count: 5)) { try CatalogBrowser.item("0", in: items, at: "") }
        #expect(throws: CatalogError.noSuchItem(segment: "Poetry", at: "", count: 5)) {
            try CatalogBrowser.item("Poetry", in: items, at: "")
        }
        #expect(throws: CatalogError.ambiguousItem(segment: "by", at: "", matches: ["1 By Newest", "2 By Authors"])) {
            try CatalogBrowser.item("by", in: items, at: "")
        }
        #expect(CatalogError.noSuchItem(segment: "6", at: "2", count: 5).description
            == "browse path 2 has no item '6' (items 1 to 5, or the start of a title); see `shelf browse 2`")
        #expect(CatalogError.noSearch(library: "x").exitCode == .noSearch)
        #expect(ShelfExit.noSearch.rawValue == 91)
    }
}
