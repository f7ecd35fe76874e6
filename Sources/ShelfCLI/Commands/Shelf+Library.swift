import ArgumentParser
import Foundation
import ShelfCore

extension Shelf {
    /// `shelf library add|list|remove|default`.
    struct LibraryCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "library",
            abstract: "Add, list and remove libraries.",
            subcommands: [Add.self, Find.self, Registry.self, SetLibrary.self, ListLibraries.self, Remove.self, Default.self],
            defaultSubcommand: ListLibraries.self
        )
    }
}

extension Shelf.LibraryCommand {
    /// `shelf library add NAME URL`.
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a library by the URL of its OPDS catalog, or from a library registry.",
            discussion: """
                `shelf library add NAME --from-registry N` adds the Nth library of the last `shelf library find` \
                (or the one with that registry id), with the catalog and Authentication document the registry \
                links.


                Looks at the URL first and says what it found: OPDS 1 or 2, a navigation feed (sections) or a feed \
                of titles (and whether more pages or a crawlable feed follow), whether it can be searched, and how \
                the library signs patrons in. A URL that is not a catalog (an HTML page, a 404, JSON that is not \
                OPDS) is refused with exit status 90; one that cannot be reached, with its network error. A \
                catalog that answers 401 is added: run `shelf login NAME` next. --no-check adds the URL without \
                looking (offline). The first library added becomes the default. Run `shelf sync` afterwards.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption
        @Argument(help: "A short name for the library (letters, digits, - and _).") var name: String
        @Argument(help: "The URL of the library's OPDS catalog (http or https).") var url: String?
        @Option(name: .customLong("from-registry"), help: ArgumentHelp(
            "The library's number in the last `shelf library find`, or its registry id.", valueName: "n|id"))
        var fromRegistry: String?
        @Option(name: .long, help: ArgumentHelp("The registry to look the id up in.", valueName: "url"))
        var registry: String?
        @Flag(name: .customLong("default"), help: "Make it the default library.") var makeDefault = false
        @Flag(name: .customLong("no-check"), help: "Add the URL without fetching it first.") var noCheck = false
        @OptionGroup var crawl: CrawlBoundOptions

        func validate() throws {
            guard name.range(of: "^[A-Za-z0-9_-]{1,40}$", options: .regularExpression) != nil else {
                throw ValidationError("library names are 1-40 letters, digits, '-' or '_': '\(name)'")
            }
            switch (url, fromRegistry) {
            case (nil, nil): throw ValidationError("give the catalog's URL, or --from-registry N after `shelf library find`")
            case (.some, .some): throw ValidationError("give the catalog's URL or --from-registry, not both")
            case (let url?, nil):
                guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
                    scheme == "http" || scheme == "https", parsed.host != nil
                else {
                    throw ValidationError("not an http(s) URL: '\(url)'")
                }
            case (nil, .some): break
            }
            try crawl.validate()
        }

        /// The registry's library `--from-registry` names: a number of the last `find`, or an id (looked for there,
        /// else asked of the registry).
        private func registryLibrary() throws -> RegistryLibrary {
            let given = fromRegistry!.trimmingCharacters(in: .whitespaces)
            let found = FoundLibraries.load(global.resolvedHome)
            if let number = Int(given) {
                guard let found, number >= 1, number <= found.libraries.count else {
                    throw RegistryError.noSuchResult("numbered \(number)")
                }
                return found.libraries[number - 1]
            }
            let urn = given.hasPrefix("urn:uuid:") ? given : "urn:uuid:" + given
            if let library = found?.libraries.first(where: { $0.id == urn }) { return library }
            return try global.registry(registry ?? found?.registry).library(id: urn)
        }

        func run() throws {
            try withFailureHandling {
                var catalog = url.flatMap(URL.init(string:))
                var chosen: RegistryLibrary?
                if fromRegistry != nil {
                    let library = try registryLibrary()
                    guard let address = library.catalogURL, let parsed = URL(string: address),
                          ["http", "https"].contains(parsed.scheme?.lowercased() ?? "")
                    else {
                        throw RegistryError.badAnswer(url: library.name, reason: "it links no catalog for this library")
                    }
                    (catalog, chosen) = (parsed, library)
                }
                let store = try global.openStore()
                var added = try store.addLibrary(
                    name: name, url: catalog!, makeDefault: makeDefault, crawlDepth: crawl.crawlDepth,
                    crawlFeeds: crawl.crawlFeeds, check: !noCheck, home: global.resolvedHome,
                    http: global.httpConfiguration)
                if let document = chosen?.authenticationURL {
                    try store.setAuthDocumentURL(name: name, url: document)
                    added.library.authDocumentURL = document
                }
                if output.json { return try Output.json(added) }
                guard !global.quiet else { return }
                let library = added.library
                if let chosen { Output.line("\(chosen.name), from the library registry.") }
                if let finding = added.finding { Output.line(finding.line(library: library.name)) }
                let next = added.finding?.kind == .signInFirst ? "shelf login \(library.name)" : "shelf sync"
                Output.line("Added \(library.name) (\(library.url))\(library.isDefault ? ", the default library" : ""). Next: \(next)")
            }
        }
    }

    /// `shelf library set NAME --crawl-depth N --crawl-feeds N`.
    struct SetLibrary: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change a library's settings: what sync downloads by itself, notifications, crawl bounds.",
            discussion: """
                --auto-download says what each sync downloads by itself: none; loans (the default: audiobooks on \
                loan, and updates of titles downloaded before; `audiobooks` is the same); all (adds the free \
                titles of followed authors and series). --keep N archives the oldest finished titles beyond N \
                downloaded ones (never one in progress; 0 removes the limit); what it archived stays archived, as a \
                title you archive does. --max-size caps what the library's \
                downloads take on disk (like 20G, 500M; 0 removes the cap): a title that would go past it is left \
                out, and that is an event. --notify on sends each new event as a desktop notification, as \
                `shelf sync --notify` does. --sync-positions off stops reading positions and bookmarks from the \
                library and sending them to it: they are kept on this computer (and sent if it is turned on \
                again), and the library keeps what it last had. Unset, a library whose patron profile (Palace's \
                simplified:synchronize_annotations) says not to keep positions is not synced either; \
                --sync-positions on syncs it and tells the library so.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The library's name.") var name: String
        @OptionGroup var crawl: CrawlBoundOptions

        @Option(name: .customLong("auto-download"), help: ArgumentHelp(
            "What each sync downloads by itself: none, loans (audiobooks) or all.", valueName: "policy"))
        var autoDownload: String?

        @Option(name: .long, help: ArgumentHelp("Keep at most N finished downloaded titles (0: no limit).", valueName: "n"))
        var keep: Int?

        @Option(name: .customLong("max-size"), help: ArgumentHelp(
            "A size budget for the library's downloads, like 20G or 500M (0: none).", valueName: "size"))
        var maxSize: String?

        @Option(name: .long, help: ArgumentHelp("Desktop notifications after each sync: on or off.", valueName: "on|off"))
        var notify: String?

        @Option(name: .customLong("sync-positions"), help: ArgumentHelp(
            "Sync positions and bookmarks with the library's annotation service: on or off.", valueName: "on|off"))
        var syncPositions: String?

        var policy: DownloadPolicy? {
            autoDownload.flatMap { $0.lowercased() == "audiobooks" ? .loans : DownloadPolicy(rawValue: $0.lowercased()) }
        }

        func validate() throws {
            try crawl.validate()
            if let autoDownload, policy == nil {
                throw ValidationError("--auto-download is none, loans (or audiobooks) or all, not '\(autoDownload)'")
            }
            if let keep, keep < 0 { throw ValidationError("--keep must not be negative") }
            if let maxSize, ByteCount.parse(maxSize) == nil {
                throw ValidationError("--max-size takes a size like 20G, 500M or 0, not '\(maxSize)'")
            }
            if let notify, !["on", "off"].contains(notify) { throw ValidationError("--notify is on or off") }
            if let syncPositions, !["on", "off"].contains(syncPositions) {
                throw ValidationError("--sync-positions is on or off")
            }
            if crawl.crawlDepth == nil && crawl.crawlFeeds == nil && autoDownload == nil && keep == nil && maxSize == nil
                && notify == nil && syncPositions == nil
            {
                throw ValidationError("give a setting to change: --auto-download, --keep, --max-size, --notify, "
                                      + "--sync-positions, --crawl-depth or --crawl-feeds")
            }
        }

        func run() throws {
            try withFailureHandling {
                let store = try global.openStore()
                var library = try store.library(named: name)
                if crawl.crawlDepth != nil || crawl.crawlFeeds != nil {
                    library = try store.setCrawlBounds(name: name, depth: crawl.crawlDepth, feeds: crawl.crawlFeeds)
                    if !global.quiet {
                        let bounds = library.crawlBounds
                        Output.line("\(library.name): sync crawls \(bounds.depth) links deep and \(bounds.feeds) feeds at most.")
                    }
                }
                if autoDownload != nil || keep != nil || maxSize != nil || notify != nil {
                    library = try store.setDownloadPolicy(
                        name: name, policy: policy, keep: keep, maxBytes: maxSize.flatMap(ByteCount.parse),
                        notify: notify.map { $0 == "on" })
                    if !global.quiet {
                        var line = "\(library.name): sync downloads \(library.autoDownload.phrase)"
                        if let keep = library.keepFinished { line += ", keeping \(keep) finished title\(keep == 1 ? "" : "s") at most" }
                        if let bytes = library.maxBytes { line += ", within \(Self.sizeText(bytes))" }
                        Output.line(line + (library.notify ? "; notifications on." : "."))
                    }
                }
                if let syncPositions { try setSyncPositions(syncPositions == "on", store: store) }
            }
        }

        /// Turns position sync on (telling the library, when its patron profile does not say so already) or off.
        private func setSyncPositions(_ on: Bool, store: Store) throws {
            var library = try store.setSyncPositions(name: name, on)
            guard on else {
                if !global.quiet {
                    Output.line("\(library.name): positions and bookmarks are no longer synced: shelf keeps them on this "
                                + "computer and sends them if this is turned on again; the library keeps the place and "
                                + "bookmarks it last had from your devices.")
                }
                return
            }
            let told = try PatronProfile.optIn(
                library, store: store, home: global.resolvedHome, configuration: global.httpConfiguration)
            library = try store.library(named: name)
            if !global.quiet {
                Output.line("\(library.name): positions and bookmarks sync with the library"
                            + (told ? "; your library account now keeps them too." : "."))
            }
        }

        static func sizeText(_ bytes: Int64) -> String {
            bytes >= 1 << 30 ? String(format: "%.1f GB", Double(bytes) / Double(1 << 30))
                : String(format: "%.1f MB", Double(bytes) / Double(1 << 20))
        }
    }

    /// `shelf library list`.
    struct ListLibraries: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the libraries.")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var output: JSONOption

        func run() throws {
            try withFailureHandling {
                let libraries = try global.openStore().libraries()
                if output.json { return try Output.json(libraries) }
                if libraries.isEmpty {
                    Output.line("No libraries yet: shelf library add NAME URL (or try: shelf demo)")
                    return
                }
                Output.table(
                    ["NAME", "DEFAULT", "LAST SYNC", "URL"],
                    libraries.map { library in
                        [library.name, library.isDefault ? "*" : "",
                         library.lastSyncAt.map { Output.timestamp($0) + " " + (library.lastSyncStatus ?? "") } ?? "never",
                         library.url]
                    })
            }
        }
    }

    /// `shelf library remove NAME`.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a library and everything shelf stored for it.",
            discussion: """
                Erases the library's sign-in (card and PIN, or user name and password, and any tokens), its titles, \
                loans, listening positions and bookmarks in the store, and the downloaded books' files. When files \
                would be deleted, asks first on a terminal; --yes deletes without asking, and is needed when there \
                is no terminal (without it the command fails with exit status 64 and removes nothing). A library \
                added again under the same name starts signed out.
                """)

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The library's name.") var name: String
        @Flag(name: .shortAndLong, help: "Delete the downloaded books without asking.") var yes = false

        func run() throws {
            try withFailureHandling {
                let removal = LibraryRemoval(store: try global.openStore(), home: global.resolvedHome)
                let plan = try removal.plan(name)
                let files = "\(plan.titlesOnDisk) downloaded title\(plan.titlesOnDisk == 1 ? "" : "s") "
                    + "(\(plan.bytesOnDisk / 1_048_576) MB)"
                if plan.deletesFiles && !yes {
                    guard let answer = Prompt.confirm("Remove \(name) and delete its \(files)?") else {
                        throw CirculationError.confirmationNeeded("removing \(name) deletes its \(files)")
                    }
                    guard answer else {
                        if !global.quiet { Output.line("Kept \(name); nothing was removed.") }
                        return
                    }
                }
                try removal.remove(name)
                guard !global.quiet else { return }
                var erased: [String] = []
                if plan.deletesFiles { erased.append("deleted its \(files)") }
                if plan.signedIn { erased.append("erased its sign-in") }
                Output.line("Removed \(name)" + (erased.isEmpty ? "." : "; " + erased.joined(separator: " and ") + "."))
            }
        }
    }

    /// `shelf library default NAME`.
    struct Default: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "default", abstract: "Make a library the default for commands without --library.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The library's name.") var name: String

        func run() throws {
            try withFailureHandling {
                try global.openStore().setDefaultLibrary(name: name)
                if !global.quiet { Output.line("\(name) is now the default library.") }
            }
        }
    }
}

/// `--crawl-depth` and `--crawl-feeds`, for `library add`, `library set` and `sync`.
struct CrawlBoundOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "How many links deep from a navigation root sync follows (default \(CrawlBounds.standard.depth)).",
        valueName: "n"))
    var crawlDepth: Int?

    @Option(name: .long, help: ArgumentHelp(
        "How many feeds sync reads at most when crawling a navigation root (default \(CrawlBounds.standard.feeds)).",
        valueName: "n"))
    var crawlFeeds: Int?

    func validate() throws {
        if let crawlDepth, !(1...64).contains(crawlDepth) { throw ValidationError("--crawl-depth must be 1 to 64") }
        if let crawlFeeds, !(1...100_000).contains(crawlFeeds) { throw ValidationError("--crawl-feeds must be 1 to 100000") }
    }
}

extension DownloadPolicy {
    /// What `shelf library set` says the policy downloads.
    var phrase: String {
        switch self {
        case .none: "nothing by itself (shelf download by hand)"
        case .loans: "audiobooks on loan and updates of titles downloaded before"
        case .all: "audiobooks on loan, updates, and the free titles of followed authors and series"
        }
    }
}
