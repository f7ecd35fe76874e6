import ShelfCore

/// The long help of the commands whose code is glue around ShelfCore: kept here so each command reads as what it
/// does. The man pages are generated from these.
enum Help {
    static let sync = """
        Follows the catalog's pages (rel="next"), asking only for pages that changed (ETag, \
        Last-Modified). Once 3 pages in a row bring no title not seen in this sync (a server paging for ever), \
        their next links are not followed: a warning says where, and nothing is removed that sync. A feed is \
        read to \(SyncOptions.defaultMaxPages) pages at most (--max-pages); past that, the sync stops and \
        nothing changes. Every page is read and kept on disk before anything is written: if a page fails, nothing \
        changes and the error names the page. Then they are applied in short steps (about 150 ms each, a long \
        page in several), so your other commands (borrow, return, archive, library set, mark, the \
        player) never wait for a slow library; what you borrowed or returned after the sync read your loans \
        stands over that older feed. Removing titles and ending loans not seen is the last step, and only its \
        commit makes the sync's changes stand: a sync that fails while applying undoes its steps at once, and one \
        killed is undone by the next sync before it begins (what you did in between stays). Safe under cron: two syncs never run at once; the second waits \
        --wait seconds, then exits with status 75. With --quiet nothing is printed on success; \
        otherwise one summary line per library ("12 new, 3 updated, 1 removed").

        When the catalog's root is a navigation feed (calibre, COPS, Kavita, Komga), sync crawls it breadth \
        first: it follows the navigation links on the root's own host to every feed of titles, each with \
        its pages, and stores each title once however many feeds list it. It never follows facets, \
        search, groups' lanes or links back (up, start, self, a feed already read). The crawl is bounded: \
        \(CrawlBounds.standard.depth) links deep and \(CrawlBounds.standard.feeds) feeds by default; set \
        them per library with `shelf library set NAME --crawl-depth N --crawl-feeds N`, or for one run \
        here. When a bound stops the crawl, a warning says which; the titles read are stored, and no \
        title is removed that sync. A feed of the crawl that answers an error status (404, or 5xx after its \
        retries) or an HTML page is skipped with one warning naming it: the rest syncs, its titles are kept and \
        nothing is removed that sync. A root that leads to no title at all fails with exit status 90.

        A navigation root that links a feed of every title (a link with rel http://opds-spec.org/sort/new, or \
        titled "All books", "All", "Everything", "Newest", "Recently added", "Title" and the like, "By " \
        ignored: calibre's "By Newest", COPS's "All books") is read through that feed alone, checked first \
        against up to \(CrawlBounds.routeCheckPages) pages of \(CrawlBounds.routeCheckSections) of its \
        other sections (each section's first page, then one of its links, a different one each sync, down to a \
        page of titles): a 2,000-book calibre library is its 67 pages of 30, not the 400 feeds of its author, \
        series and tag sections, and a book deleted is removed. When the check finds a title the feed lacks, \
        the sync crawls every section as above, says so once (an event, also under --quiet), and crawls every \
        section at the following syncs too, until one finds the feed holding every title the sections do. \
        --json names the feed read as "crawlRoute".

        GUARDS. When a sync keeps what it does not trust (a loans feed that came back empty, an empty catalog, \
        a crawl stopped by its bound, a skipped feed, a feed of every title found lacking), it warns every run \
        at a terminal, and the first run it happens it is also an event ("NAME: warning: …"), so under --quiet \
        cron hears of it once, and again only after it stopped and came back.

        A page answering 429 or 5xx, or cut short, or arriving slower than 512 bytes a second for 30 seconds, \
        is asked for again with backoff (honouring Retry-After) up to 5 times within 2 minutes, the attempts' \
        own time included. A library whose server keeps failing (5xx, no answer, a reset) is \
        backed off across runs: after its second failure in a row it is not tried again for 30 minutes, \
        doubling up to a day, and a sync meanwhile skips it with one line and exit status 0 (with --json, \
        its summary says "skipped": true and "nextTryAt"). A sign-in wanted, a refusal, a full disk or \
        another local failure never backs a library off, and `shelf login` or `shelf library set` ends a \
        back-off at once. --now tries at once. Under --quiet only the first failure and the first success \
        after failures are printed.

        DOWNLOADS. At the end of every sync, each library's download policy is applied (`shelf library \
        set NAME --auto-download none|loans|all`, `loans` by default): audiobooks on loan and updates of \
        titles downloaded before are downloaded, in the download queue's order; `all` adds the free titles \
        of followed authors and series. An updated title's old files stay playable until the new ones are \
        complete. `--keep N` archives the oldest finished titles beyond N (never one in progress; each is an \
        event, "archived to keep N finished titles"), and `--max-size` leaves out a title that would go past the \
        budget. A title you archived (`shelf archive`), or the keep rule did, stays archived: no policy downloads \
        it again, and an update of it is an event, not a download, until you download it by name \
        (`shelf download ID`) or its loan ends. A title another shelf is downloading at that moment is left \
        to it, with no event. --no-download skips all of this.

        EVENTS. What happened (a hold ready, a new loan, a loan due within 3 days, a loan expired, a \
        download done or failed, a title updated, a new title by a followed author or in a followed \
        series, a library announcement) is kept in an event log (`shelf events`) and printed once, one \
        line each, the first time a sync sees it: never again by a later sync. With --quiet those lines \
        are all a sync prints, so cron mails exactly the new events and nothing when nothing happened. \
        More than \(EventTeller.stormThreshold) new events at once are summed up, one line per kind. \
        With --notify (or `shelf library set NAME --notify on`) and a desktop session bus \
        (DBUS_SESSION_BUS_ADDRESS), each new event is also sent once as a desktop notification, through \
        notify-send or gdbus; when no notification daemon answers, one line says so and the events stay \
        in the log.
        """

    static let download = """
        Follows the title's acquisition links to its audiobook manifest (through the library's bearer \
        token when it uses one), or to its package, and downloads the parts in parallel. Parts resume \
        where they stopped (Range, If-Range); links that expire are fetched again; a part that fails \
        does not stop the others, and running the command again resumes. Titles protected by DRM \
        (Findaway, LCP, OverDrive, Feedbooks) are reported, not attempted.

        A part, or a book's one file, with 4 MB or more still to come, more than half a second's worth at its \
        speed so far, while connections of --parallel stand idle is split into byte ranges, sharing the idle \
        connections, written into the same .part file (a range that ends early takes half of the largest left), \
        so a server capping each connection's speed no longer caps the book. Each range resumes on its own (its \
        place is kept in .part.json). A server that answers a range with the whole file, or whose copy changed \
        meanwhile, gets the part again over one connection, said once under -v.

        Every part is bounded. It may hold its manifest's stated length; else what its duration plays at \
        2 Mbit/s, with 16 MB to spare; else 4 GiB (--part-cap): a server offering or sending more is refused \
        and nothing of the part is kept. A part arriving slower than 1 KB a second over 2 minutes \
        (--min-rate, --rate-window) is cut off and tried again, and one sending nothing for 30 seconds likewise. A part must \
        average 16 KB a second over all its attempts after 10 minutes of grace (--min-average): at that \
        deadline, about a minute a megabyte of what it may hold, it fails and its bytes are kept for the next \
        run. Neither rate applies under --limit-rate, the patron's own choice of slowness. While a part is \
        written, a disk with less than 64 MB free (--keep-free) stops the download as a full disk does (exit \
        status 94), keeping what arrived. The downloads at the end of `shelf sync` take the same options.

        A book offered as one audio file (mp3, m4b, ogg, opus, flac, aac…) or a zip of audio files, \
        as calibre, COPS and other plain servers offer them, is downloaded the same resumable way; \
        `shelf listen` reads its chapters from the file. A part that is not audio, or a zip with no \
        audio or a path outside the book, is refused (exit status 86) and nothing is kept. A library \
        that answers 401 for the file says to sign in (exit status 89), or, when it no longer accepts \
        the stored user name and password, erases them (exit status 77).

        Ctrl-C or SIGTERM stops the transfers, keeps the bytes received, puts the title back where it \
        was (New, or Updated) and exits with 128 plus the signal; the next download resumes, and \
        `shelf archive` clears the half-downloaded files. A part whose file already holds every byte \
        (the process was killed before renaming it) is checked against the manifest's length and \
        SHA-256, or the server's Content-Range total, and moved into place. Before starting, the free \
        space on the disk is checked against the manifest's sizes; a full disk is named by its mount \
        point (exit status 94). --limit-rate caps all parallel transfers together. With --all, a title \
        whose download failed twice or more in a row waits (30 minutes, doubling up to a day) and is \
        skipped with one line; naming the title tries it at once. --all follows the same rule as the downloads \
        at the end of a sync (loans, in the queue's order, within `--max-size`): it leaves out the titles you \
        archived, saying how many; naming an archived title downloads it and ends its archived mark.
        """
}
