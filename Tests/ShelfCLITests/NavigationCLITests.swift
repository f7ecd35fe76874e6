import Foundation
import ShelfSpawn
import ShelfCore
import Synchronization
import Testing

/// `shelf sync` crawling navigation roots served by a loopback maze: loops, bounds, 304s, roots that lead nowhere.
@Suite(.serialized, .timeLimit(.minutes(5))) struct NavigationCLITests {
    private struct Listed: Decodable {
        var id: String
        var title: String
    }

    private func listed(_ shelf: ShelfRunner, _ arguments: [String] = []) async throws -> [Listed] {
        let list = try await shelf.run(["list", "--json"] + arguments)
        #expect(list.status == 0, "\(list.stderr)")
        return try JSONDecoder().decode([Listed].self, from: Data(list.stdout.utf8)).sorted { $0.id < $1.id }
    }

    private func summary(_ result: ShelfRunner.Result) throws -> SyncSummary {
        try #require(JSONDecoder.iso.decode([SyncSummary].self, from: Data(result.stdout.utf8)).first)
    }

    /// A root leading to a feed of titles in two pages, and to a navigation feed that loops back (to itself, to
    /// the root under another name, up) and on to a second feed of titles sharing one title with the first; with
    /// facets, a search, a shelf and a link off the root's host, none of which may be followed.
    private static func loopingMaze(path: String, base: String) -> FeedMaze.Reply? {
        let loan = #"<link rel="http://opds-spec.org/shelf" href="/loans"/>"#
        switch path {
        case "/":
            let extra = """
                <link rel="start" href="/?lib=main" type="application/atom+xml"/>\
                <link rel="search" type="application/opensearchdescription+xml" href="/search.xml"/>\
                <link rel="http://opds-spec.org/facet" opds:facetGroup="Sort" title="New" href="/facet?sort=new"/>\(loan)
                """
            return .atom(MazeFeed.navigation(id: "urn:maze:root", title: "Maze", links: [
                ("Shelf one", "/all"), ("Fiction", "/fiction"), ("Home (another name)", "/?lib=main"),
                ("Elsewhere", "http://localhost:\(base.split(separator: ":").last!)/offhost"),
            ], extra: extra))
        case "/all":
            return .atom(MazeFeed.books(id: "urn:maze:all", [("b1", "One"), ("b2", "Two")],
                                        extra: #"<link rel="next" href="/all?page=2"/><link rel="up" href="/"/>"#))
        case "/all?page=2":
            return .atom(MazeFeed.books(id: "urn:maze:all", [("b3", "Three")], extra: #"<link rel="first" href="/all"/>"#))
        case "/fiction":
            return .atom(MazeFeed.navigation(id: "urn:maze:fiction", title: "Fiction", links: [
                ("Fiction again", "/fiction"), ("Back home", "/"), ("Classics", "/classics"), ("Root by id", "/root-copy"),
            ], extra: #"<link rel="up" href="/"/><link rel="http://opds-spec.org/facet" href="/facet?f=1"/>"#))
        case "/classics":
            return .atom(MazeFeed.books(id: "urn:maze:classics", [("b1", "One"), ("b4", "Four")]))
        case "/root-copy":
            // The root again under a URL of its own: read once, it leads only to feeds already read.
            return .atom(MazeFeed.navigation(id: "urn:maze:root", title: "Maze", links: [("Home", "/"), ("Fiction", "/fiction")]))
        default:
            return nil
        }
    }

    @Test func aNavigationRootIsCrawledToEveryTitleOnceWithoutFollowingLoopsFacetsOrOtherHosts() async throws {
        let maze = try FeedMaze(route: Self.loopingMaze)
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        let added = try await shelf.run(["library", "add", "maze", maze.base + "/"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.hasPrefix(#"OPDS 1 navigation feed "Maze": 4 sections; search: yes; sign-in: none"#))
        maze.resetLog()

        let first = try await shelf.run(["sync", "-v"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "4 new, 0 updated, 0 removed\n")
        #expect(!first.stderr.contains("warning"))
        #expect(try await listed(shelf).map(\.title) == ["One", "Two", "Three", "Four"])
        let read = ["/", "/all", "/all?page=2", "/fiction", "/classics", "/root-copy"]
        #expect(maze.paths == read)

        // Unchanged pages answer 304; the crawl goes on through the links each page had last time. The root is read
        // whole: its links' titles choose the route.
        maze.resetLog()
        let second = try await shelf.run(["sync", "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        let again = try summary(second)
        #expect((again.added, again.changed, again.removed, again.entries) == (0, 0, 0, 4))
        #expect(again.pages == read.count && again.pagesNotModified == again.pages - 1)
        #expect(again.crawlRoute == nil)
        #expect(again.crawledFeeds == 4)
        #expect(maze.paths == read)
    }

    /// A navigation root with a feed of every title ("All books", two pages) beside author and tag sections; with
    /// `lie` set the feed lacks "Five", which every author's and tag's feed lists; with `gone` set "Four" is deleted
    /// from the whole catalog.
    private final class AllBooks: Sendable {
        let lie = Mutex(false)
        let gone = Mutex(false)

        func route(_ path: String, _ base: String) -> FeedMaze.Reply? {
            let five = ("b5", "Five")
            let four = gone.withLock { $0 } ? [] : [("b4", "Four")]
            switch path {
            case "/":
                return .atom(MazeFeed.navigation(id: "urn:all", title: "Library", links: [
                    ("By Authors", "/authors"), ("All books", "/all"), ("By Tags", "/tags"),
                ]))
            case "/all":
                return .atom(MazeFeed.books(id: "urn:all:books", [("b1", "One"), ("b2", "Two"), ("b3", "Three")],
                                            extra: #"<link rel="next" href="/all?page=2"/>"#))
            case "/all?page=2":
                return .atom(MazeFeed.books(id: "urn:all:books", four + (lie.withLock { $0 } ? [] : [five])))
            case "/authors":
                return .atom(MazeFeed.navigation(id: "urn:authors", title: "Authors", links: [("Ann", "/author/ann"), ("Bob", "/author/bob")]))
            case "/author/ann": return .atom(MazeFeed.books(id: "urn:ann", [("b1", "One"), ("b2", "Two"), five]))
            case "/author/bob": return .atom(MazeFeed.books(id: "urn:bob", [("b3", "Three")] + four + [five]))
            case "/tags":
                return .atom(MazeFeed.navigation(id: "urn:tags", title: "Tags", links: [("Sea", "/tag/sea"), ("Sky", "/tag/sky")]))
            case "/tag/sea": return .atom(MazeFeed.books(id: "urn:sea", [("b1", "One"), five]))
            case "/tag/sky": return .atom(MazeFeed.books(id: "urn:sky", [("b2", "Two")] + four + [five]))
            default: return nil
            }
        }
    }

    @Test func aFeedOfEveryTitleIsReadAloneWhileTheSectionsCheckedHoldNothingElse() async throws {
        let catalog = AllBooks()
        let maze = try FeedMaze(route: catalog.route)
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        #expect(try await shelf.run(["library", "add", "all", maze.base + "/"]).status == 0)
        maze.resetLog()
        let first = try await shelf.run(["sync", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let read = try summary(first)
        #expect(read.added == 5 && read.crawlRoute == #""All books" (\#(maze.base)/all)"#, "\(read)")
        #expect(first.stderr.isEmpty, "\(first.stderr)")
        // The root, one page of each section and one of its feeds (the check), then the feed of every title: never
        // every author's and tag's feed.
        let paths = maze.paths
        #expect(paths.first == "/" && paths.suffix(2) == ["/all", "/all?page=2"], "\(paths)")
        #expect(paths.count == 7 && Set(paths).count == 7 && paths.contains("/authors") && paths.contains("/tags"), "\(paths)")
        #expect(try await listed(shelf).map(\.title).sorted() == ["Five", "Four", "One", "Three", "Two"])

        // Again, as many pages (the check looks into other feeds of the sections); a title deleted is removed.
        maze.resetLog()
        let again = try summary(try await shelf.run(["sync", "--json"]))
        #expect(again.pages == 7 && again.crawlRoute != nil, "\(maze.paths)")
        catalog.gone.withLock { $0 = true }
        let removed = try await shelf.run(["sync"])
        #expect(removed.stdout == "0 new, 0 updated, 1 removed\n", "\(removed.stdout)\(removed.stderr)")

        // The feed lies: the check finds "Five" in a section, every section is crawled, nothing is removed, and the
        // patron hears it once, also under --quiet.
        catalog.lie.withLock { $0 = true }
        maze.resetLog()
        let lying = try await shelf.run(["sync", "--quiet"])
        #expect(lying.status == 0, "\(lying.stderr)")
        #expect(lying.stdout.contains(#"the feed "All books" ("#) && lying.stdout.contains("lacks 1 of the"), "\(lying.stdout)")
        #expect(Set(maze.paths) == ["/", "/authors", "/author/ann", "/author/bob", "/all", "/all?page=2", "/tags", "/tag/sea", "/tag/sky"])
        #expect(try await listed(shelf).map(\.title).sorted() == ["Five", "One", "Three", "Two"])
        let still = try await shelf.run(["sync", "--json"])
        #expect(still.status == 0 && still.stdout.hasPrefix("["), "\(still.stdout)\(still.stderr)")
        let lacked = try summary(still)
        #expect(lacked.crawlRoute == nil && lacked.removed == 0 && lacked.crawledFeeds == 7, "\(lacked)")
        #expect(lacked.warnings.contains { $0.contains("lacks 1 titles its sections hold") }, "\(lacked.warnings)")
        #expect(try await shelf.run(["sync", "--quiet"]).stdout.isEmpty)

        // Whole again: the next crawl finds nothing the feed lacks, and the sync after reads the feed alone.
        catalog.lie.withLock { $0 = false }
        let healed = try summary(try await shelf.run(["sync", "--json"]))
        #expect(healed.crawlRoute != nil && healed.warnings.isEmpty, "\(healed)")
        maze.resetLog()
        let alone = try summary(try await shelf.run(["sync", "--json"]))
        #expect(alone.crawlRoute != nil && alone.crawledFeeds == 5 && maze.paths.count == 7, "\(alone) \(maze.paths)")
    }

    /// Two feeds of titles behind a navigation root; the second loses a title when `shrink` is set.
    private final class TwoFeeds: Sendable {
        let shrink = Mutex(false)

        func route(_ path: String, _ base: String) -> FeedMaze.Reply? {
            switch path {
            case "/": .atom(MazeFeed.navigation(id: "urn:two", title: "Two feeds", links: [("A", "/a"), ("B", "/b")]))
            case "/a": .atom(MazeFeed.books(id: "urn:a", [("b1", "One"), ("b2", "Two")]))
            case "/b": .atom(MazeFeed.books(id: "urn:b", shrink.withLock { $0 } ? [("b3", "Three")] : [("b3", "Three"), ("b4", "Four")]))
            default: nil
            }
        }
    }

    @Test func aCrawlStoppedByItsBoundWarnsAndRemovesNothing() async throws {
        let feeds = TwoFeeds()
        let maze = try FeedMaze(route: feeds.route)
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        #expect(try await shelf.run(["library", "add", "two", maze.base + "/"]).status == 0)
        #expect(try await shelf.run(["sync"]).stdout == "4 new, 0 updated, 0 removed\n")

        feeds.shrink.withLock { $0 = true }
        let partial = try await shelf.run(["sync", "--crawl-feeds", "1"])
        #expect(partial.status == 0, "\(partial.stderr)")
        #expect(partial.stdout == "0 new, 0 updated, 0 removed\n")
        #expect(partial.stderr.contains("the crawl stopped at its bound of 1 feed (raise it with `shelf library set two --crawl-feeds 2`)"))
        #expect(partial.stderr.contains("titles not seen were kept, not removed"))
        #expect(try await listed(shelf).count == 4)

        // The bound kept with the library works the same, and is what the next syncs use.
        let set = try await shelf.run(["library", "set", "two", "--crawl-feeds", "1"])
        #expect(set.stdout == "two: sync crawls 4 links deep and 1 feeds at most.\n")
        let kept = try await shelf.run(["sync", "--json"])
        #expect(try summary(kept).crawlLimit == .feeds)
        #expect(try summary(kept).removed == 0)

        // Read whole again, the title the second feed lost is removed.
        #expect(try await shelf.run(["library", "set", "two", "--crawl-feeds", "200"]).status == 0)
        let whole = try await shelf.run(["sync"])
        #expect(whole.stdout == "0 new, 0 updated, 1 removed\n")
        #expect(whole.stderr.isEmpty)
    }

    /// What a crawl bound kept reaches cron once: an event the first run the crawl stops at it, nothing more while it
    /// does, news again once a whole crawl came between. In this process, as cron runs `shelf sync --quiet`.
    @Test func aCrawlBoundIsOneEventWhileItHoldsAndNewsAgainWhenItReturns() async throws {
        let maze = try FeedMaze(route: TwoFeeds().route)
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        let home = Home(directory: shelf.home)
        let store = try Store(home: home)
        try store.addLibrary(name: "two", url: try #require(URL(string: maze.base + "/")))
        func refresh(feeds: Int?) throws -> SyncSummary {
            var settings = RefreshSettings()
            settings.sync.crawlFeeds = feeds
            settings.sync.lockTimeout = 1
            settings.noDownload = true
            settings.attended = false
            return try LibraryRefresh(store: store, home: home, settings: settings).run(try store.library(named: "two"))
        }
        #expect(try refresh(feeds: nil).added == 4)
        var told: [[NoticeKind]] = []
        for _ in 0..<3 { told.append(try refresh(feeds: 1).events.map(\.kind)) }
        let whole = try refresh(feeds: nil)
        told.append(whole.events.map(\.kind))
        let again = try refresh(feeds: 1)
        told.append(again.events.map(\.kind))
        #expect(told == [[.syncWarning], [], [], [], [.syncWarning]])
        #expect(whole.warnings.isEmpty && whole.crawlLimit == nil, "\(whole.warnings)")
        #expect(again.crawlLimit == .feeds && again.removed == 0)
        #expect(again.events.first?.text.hasPrefix("two: warning: the crawl stopped at its bound of 1 feed") == true,
                "\(again.events.map(\.text))")
    }

    @Test func underQuietACrawlBoundIsOneLineTheFirstRunAndNothingTheNext() async throws {
        let maze = try FeedMaze(route: TwoFeeds().route)
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        #expect(try await shelf.run(["library", "add", "two", maze.base + "/"]).status == 0)
        #expect(try await shelf.run(["sync", "--quiet"]).stdout.isEmpty)
        #expect(try await shelf.run(["library", "set", "two", "--crawl-feeds", "1", "--quiet"]).status == 0)
        let first = try await shelf.run(["sync", "--quiet"])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first.stderr)")
        #expect(first.stdout == "two: warning: the crawl stopped at its bound of 1 feed (raise it with "
                    + "`shelf library set two --crawl-feeds 2`); this sync was partial, so titles not seen were kept, "
                    + "not removed\n", "\(first.stdout)")
        let second = try await shelf.run(["sync", "--quiet"])
        #expect(second.status == 0 && second.stdout.isEmpty && second.stderr.isEmpty, "\(second.stdout)\(second.stderr)")
    }

    /// Four sections behind a navigation root: one reads, one answers 404, one an HTML page and one 503, until
    /// `fixed`. The 503 asks to be tried again at once (`Retry-After: 0`), so its retries are spent in no time.
    private final class DeadSections: Sendable {
        let fixed = Mutex(false)

        func route(_ path: String, _ base: String) -> FeedMaze.Reply? {
            let fixed = self.fixed.withLock { $0 }
            switch path {
            case "/": return .atom(MazeFeed.navigation(id: "urn:dead", title: "Dead sections", links: [
                ("A", "/a"), ("Popular", "/popular.xml"), ("Portal", "/portal"), ("Busy", "/busy"),
            ]))
            case "/a": return .atom(MazeFeed.books(id: "urn:a", [("b1", "One"), ("b2", "Two")]))
            case "/popular.xml": return fixed ? .atom(MazeFeed.books(id: "urn:p", [("b3", "Three")])) : .notFound
            case "/portal":
                return fixed ? .atom(MazeFeed.books(id: "urn:c", [("b5", "Five")]))
                    : FeedMaze.Reply(status: 200, contentType: "text/html", body: Data("<html><body>Log in</body></html>".utf8))
            case "/busy":
                return fixed ? .atom(MazeFeed.books(id: "urn:busy", [("b6", "Six")]))
                    : FeedMaze.Reply(status: 503, contentType: "text/plain", body: Data("busy".utf8), headers: ["Retry-After": "0"])
            default: return nil
            }
        }
    }

    @Test func deadSectionsOfACrawlAreSkippedWithOneWarningEachAndTheRestSyncs() async throws {
        let sections = DeadSections()
        let maze = try FeedMaze(route: sections.route)
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        #expect(try await shelf.run(["library", "add", "dead", maze.base + "/", "--no-check"]).status == 0)
        let first = try await shelf.run(["sync"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.hasPrefix("2 new, 0 updated, 0 removed\n"), "\(first.stdout)")
        let warnings = first.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(warnings.count == 3, "\(first.stderr)")
        #expect(first.stderr.contains("skipped the feed \(maze.base)/popular.xml: it answered 404; its titles were kept"))
        #expect(first.stderr.contains("skipped the feed \(maze.base)/portal: it answered an HTML page, not a feed"))
        #expect(first.stderr.contains("skipped the feed \(maze.base)/busy: it answered 503; its titles were kept"))
        // The 503 was asked for again before it was given up.
        #expect(maze.paths.filter { $0 == "/busy" }.count > 1, "\(maze.paths)")
        #expect(try await listed(shelf).map(\.title) == ["One", "Two"])

        // Under cron each is said once, as an event; the next runs say nothing while it lasts.
        let quiet = try await shelf.run(["sync", "--quiet"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        #expect(quiet.stdout.isEmpty, "told by the run at the terminal: \(quiet.stdout)")
        sections.fixed.withLock { $0 = true }
        let whole = try await shelf.run(["sync", "--quiet"])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try await listed(shelf).map(\.title).sorted() == ["Five", "One", "Six", "Three", "Two"])
        sections.fixed.withLock { $0 = false }
        let again = try await shelf.run(["sync", "--quiet"])
        #expect(again.stdout.split(separator: "\n").count == 3, "news again once it comes back: \(again.stdout) \(again.stderr)")
        #expect(again.stdout.contains("dead: warning: skipped the feed \(maze.base)/popular.xml"), "\(again.stdout)")
        #expect(try await shelf.run(["sync", "--quiet"]).stdout.isEmpty)
        // Nothing was removed on account of the sections that failed.
        #expect(try await listed(shelf).count == 5)
    }

    @Test func aRootWithNoWayToAnyTitleFailsWithItsOwnStatus() async throws {
        let maze = try FeedMaze { path, _ in
            switch path {
            case "/nav": .atom(MazeFeed.navigation(id: "urn:nav", title: "Nav", links: [("Deeper", "/deeper")]))
            case "/deeper": .atom(MazeFeed.navigation(id: "urn:deeper", title: "Deeper", links: [("Back", "/nav"), ("Down", "/down")]))
            case "/down": .atom(MazeFeed.navigation(id: "urn:down", title: "Down", links: [("Books", "/books")]))
            case "/books": .atom(MazeFeed.books(id: "urn:books", [("b1", "One")]))
            case "/empty": .atom(MazeFeed.books(id: "urn:empty", []))
            default: nil
            }
        }
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        #expect(try await shelf.run(["library", "add", "empty", maze.base + "/empty"]).status == 0)
        let empty = try await shelf.run(["sync"])
        #expect(empty.status == ShelfExit.notACatalog.rawValue)
        #expect(empty.stderr == "shelf: \(maze.base)/empty holds no titles and links to no feed that does; check that it "
                    + "is the library's OPDS catalog URL (shelf library remove empty, then add the right one)\n")

        // Books three links down: too deep for a crawl of two, reached with three.
        #expect(try await shelf.run(["library", "add", "nav", maze.base + "/nav", "--crawl-depth", "2"]).status == 0)
        let shallow = try await shelf.run(["sync", "--library", "nav"])
        #expect(shallow.status == ShelfExit.notACatalog.rawValue)
        #expect(shallow.stderr.contains("is a navigation feed whose 1 section led to no titles within 2 links and 200 feeds"))
        #expect(shallow.stderr.contains("shelf library set nav --crawl-depth N --crawl-feeds N"))
        #expect(try await listed(shelf, ["--library", "nav"]).isEmpty)
        let deeper = try await shelf.run(["sync", "--library", "nav", "--crawl-depth", "3"])
        #expect(deeper.status == 0, "\(deeper.stderr)")
        #expect(deeper.stdout == "1 new, 0 updated, 0 removed\n")
    }

    @Test func aFeedLinkingTwoHundredThousandFeedsStopsAtTheBoundQuicklyInBoundedMemory() async throws {
        let count = 200_000
        let root = Data(MazeFeed.navigation(
            id: "urn:wide", title: "Wide", links: (0..<count).map { ("Feed \($0)", "/f/\($0)") }).utf8)
        let maze = try FeedMaze { path, _ in
            if path == "/" { return FeedMaze.Reply(body: root) }
            guard path.hasPrefix("/f/") else { return nil }
            let number = path.dropFirst(3)
            return .atom(MazeFeed.books(id: "urn:f:\(number)", [("t\(number)", "Title \(number)")]))
        }
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        #expect(try await shelf.run(["library", "add", "wide", maze.base + "/", "--no-check"]).status == 0)
        let started = Date()
        // /usr/bin/time reports the sync's peak memory: the links beyond the bound are never kept.
        let timed = FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        let result: ShelfRunner.Result
        if timed {
            result = try await ShelfRunner.timed(shelf, ["sync", "--json"])
        } else {
            result = try await shelf.run(["sync", "--json"])
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 120)
        let summary = try self.summary(result)
        #expect(summary.added == 200 && summary.crawledFeeds == 200 && summary.crawlLimit == .feeds)
        #expect(maze.paths.count == 201)
        #expect(summary.warnings.contains { $0.hasPrefix("the crawl stopped at its bound of 200 feeds") })
        if timed, let peak = ShelfRunner.peakKilobytes(result.stderr) {
            // The root document alone is about 50 MB (spilled to a file); its 200,000 links are never all kept.
            #expect(peak < 100_000, "peak \(peak) KB")
        }
    }

    @Test func libraryAddLooksFirstAndRefusesWhatIsNotACatalog() async throws {
        let maze = try FeedMaze { path, _ in
            switch path {
            case "/html": FeedMaze.Reply(contentType: "text/html; charset=utf-8", body: Data("<!DOCTYPE html><html></html>".utf8))
            case "/json": FeedMaze.Reply(contentType: "application/json", body: Data(#"{"hello": "world"}"#.utf8))
            case "/locked":
                FeedMaze.Reply(status: 401, contentType: "text/plain", body: Data(),
                               headers: ["WWW-Authenticate": #"Basic realm="maze""#])
            case "/books":
                .atom(MazeFeed.books(id: "urn:books", [("b1", "One"), ("b2", "Two")], extra: #"<link rel="next" href="/books?2"/>"#))
            default: nil
            }
        }
        let shelf = ShelfRunner()
        defer {
            maze.stop()
            shelf.cleanUp()
        }
        let html = try await shelf.run(["library", "add", "h", maze.base + "/html"])
        #expect(html.status == ShelfExit.notACatalog.rawValue)
        #expect(html.stderr.contains("/html is an HTML page, not an OPDS catalog"))
        let missing = try await shelf.run(["library", "add", "m", maze.base + "/missing"])
        #expect(missing.status == ShelfExit.notACatalog.rawValue)
        #expect(missing.stderr.contains("/missing answered 404 Not Found: no catalog there; check the URL (or add it anyway with --no-check)"))
        let json = try await shelf.run(["library", "add", "j", maze.base + "/json"])
        #expect(json.status == ShelfExit.notACatalog.rawValue)
        #expect(json.stderr.contains("/json is JSON but not an OPDS catalog"))
        #expect(try await shelf.run(["library", "list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[\n\n]")

        let locked = try await shelf.run(["library", "add", "locked", maze.base + "/locked"])
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(locked.stdout == """
            the catalog asks to sign in first: HTTP Basic, realm "maze" (run shelf login locked)
            Added locked (\(maze.base)/locked), the default library. Next: shelf login locked

            """)
        let books = try await shelf.run(["library", "add", "books", maze.base + "/books", "--json"])
        #expect(books.status == 0)
        let finding = try #require(try JSONDecoder.iso.decode(LibraryAdded.self, from: Data(books.stdout.utf8)).finding)
        #expect(finding.line(library: "books")
                    == "OPDS 1 acquisition feed \"Books\": 2 titles on the first page, more pages; crawlable feed: no; search: no; sign-in: none")

        // Nothing listens on port 9: refused with the network's own line, or added without a look.
        let offline = try await shelf.run(["library", "add", "off", "http://127.0.0.1:9/opds"])
        #expect(offline.status == ShelfExit.offline.rawValue)
        #expect(offline.stderr.contains("offline: cannot reach 127.0.0.1"))
        let unchecked = try await shelf.run(["library", "add", "off", "http://127.0.0.1:9/opds", "--no-check"])
        #expect(unchecked.status == 0)
        #expect(unchecked.stdout == "Added off (http://127.0.0.1:9/opds). Next: shelf sync\n")
    }

    @Test func thePalaceDemoIsDescribedAsACrawlableFeedWithItsSignIn() async throws {
        try await CLIFixture.with { fixture in
            let shelf = ShelfRunner()
            defer { shelf.cleanUp() }
            let added = try await shelf.run(["library", "add", "demo", fixture.url.absoluteString])
            #expect(added.status == 0, "\(added.stderr)")
            let line = try #require(added.stdout.split(separator: "\n").first)
            #expect(line.hasPrefix("OPDS 1 acquisition feed"))
            #expect(line.contains("crawlable feed: yes"))
            #expect(line.hasSuffix("sign-in: Authentication for OPDS (basic, basic token)"))
        }
    }
}

extension ShelfRunner {
    /// Runs `shelf args` under `/usr/bin/time -f 'peak-kb %M'`, which adds its line to standard error.
    static func timed(_ runner: ShelfRunner, _ arguments: [String]) async throws -> Result {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/time")
        process.arguments = ["-f", "peak-kb %M", executable.path] + arguments + ["--home", runner.home.path]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return try await offloaded {
            let stdout = out.fileHandleForReading.readDataToEndOfFile()
            let stderr = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                          stderr: String(decoding: stderr, as: UTF8.self))
        }
    }

    /// The peak resident size `/usr/bin/time` reported, in KB.
    static func peakKilobytes(_ stderr: String) -> Int? {
        stderr.split(separator: "\n").last { $0.hasPrefix("peak-kb ") }.flatMap { Int($0.dropFirst(8)) }
    }
}
