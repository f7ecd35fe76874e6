import Foundation

/// How a library's refresh runs: `shelf sync`'s options.
public struct RefreshSettings {
    public var sync = SyncOptions()
    /// For the downloads at the end (parallel parts, rate).
    public var download = DownloadSettings()
    /// Download nothing, whatever the library's policy (`--no-download`).
    public var noDownload = false
    /// Send each new event as a desktop notification even when the library does not ask for it (`--notify`).
    public var notify = false
    /// Someone reads the lines the command prints (not `--quiet`, not `--json`): the end of a single failure needs
    /// no event of its own, the summary line says it, and a guard's warning is told as it is printed.
    public var attended = true
    /// Catch Ctrl-C and SIGTERM while downloading, so the title under way is put back where it was (the command
    /// does; a test in the same process does not).
    public var watchSignals = false

    public init() {}
}

/// One library's refresh, the unattended run's single home: the catalog and loans (`SyncEngine`), the failure
/// streak's events, the library's announcements, the download policy with its keep rule and budget
/// (`DownloadRun`), and the new events, taken once for the caller to print and, when asked, to notify. What the
/// caller prints is all in the returned summary; `shelf sync` is this, a loop over libraries, and printing.
public final class LibraryRefresh {
    private let store: Store
    private let home: Home
    private let settings: RefreshSettings
    private let engine: SyncEngine
    /// Progress of the title being downloaded.
    public var progress: ((DownloadProgress) -> Void)?
    /// Sends new events as desktop notifications (the command's notifier); without one, none are sent.
    public var notifier: (([Notice]) -> Void)?

    public init(store: Store, home: Home, settings: RefreshSettings) {
        self.store = store
        self.home = home
        self.settings = settings
        var options = settings.sync
        options.printsWarnings = settings.attended
        engine = SyncEngine(store: store, home: home, options: options)
    }

    /// What the last `run` changed about the library's failure streak (a failure is news when it starts one).
    public var lastTransition: FailureTransition? { engine.lastTransition }

    /// Refreshes one library. A library backed off after its server failed again and again is not tried: the
    /// summary says `skipped`, with `nextTryAt` and `skipReason`. A failure of the sync is thrown (recorded as an
    /// event when it starts a streak); one title's download failing is an event and a line of the summary, not a
    /// failure. Ctrl-C or SIGTERM during the downloads throws `DownloadError.interrupted`.
    public func run(_ library: Library) throws -> SyncSummary {
        var summary: SyncSummary
        do {
            summary = try engine.sync(library)
        } catch let skip as SyncError {
            guard case .backingOff(_, let until, _, _) = skip else { throw recorded(skip, library) }
            // Not a failure of this run: cron every 30 minutes stays quiet until the library is due.
            summary = SyncSummary(library: library.name)
            summary.skipped = true
            summary.nextTryAt = until
            summary.skipReason = skip.description
            return summary
        } catch let failure as ShelfFailure {
            throw recorded(failure, library)
        }
        // The end of a failure streak is an event: told once (cron mailed its start), in the log.
        if case .recovered(let failures, let since)? = summary.transition {
            try store.recordNotice(
                kind: .libraryRecovered, libraryID: library.id, key: "recovered-\(Int(since.timeIntervalSince1970))",
                text: "\(library.name): syncing works again, after \(failures) failed sync\(failures == 1 ? "" : "s") "
                    + "since \(SyncError.localTime(since))",
                // At a terminal the summary line says it works; one failure is not worth more.
                told: settings.attended && failures < 2)
        }
        let synced = try store.library(named: library.name)
        if let document = Announcements.check(synced, store: store, configuration: settings.sync.http) {
            PatronProfile.refresh(synced, document: document, store: store, home: home, configuration: settings.sync.http)
        }
        if !settings.noDownload && synced.autoDownload != .none {
            summary.downloads = try download(synced)
        }
        // Each new event once, however the sync was run.
        summary.events = try store.takeUnprinted(libraryID: library.id)
        if settings.notify || library.notify, let notifier {
            notifier(try store.unnotified(libraryIDs: [library.id]).filter { $0.at > Date().addingTimeInterval(-3 * 86_400) })
        }
        return summary
    }

    /// The start of a failure streak is an event too, told at once by the caller's error line.
    private func recorded(_ failure: any ShelfFailure, _ library: Library) -> any ShelfFailure {
        if case .startedFailing? = engine.lastTransition, let streak = try? store.failureStreak(libraryID: library.id) {
            _ = try? store.recordNotice(
                kind: .libraryFailing, libraryID: library.id, key: "failing-\(Int(streak.firstFailedAt.timeIntervalSince1970))",
                text: "\(library.name): \(failure.description)", told: true)
        }
        return failure
    }

    /// The library's download policy: the keep rule, then the queue drained in order within the budget.
    private func download(_ library: Library) throws -> AutoDownloadReport {
        var downloadSettings = settings.download
        let signals = settings.watchSignals ? SignalWatch() : nil
        if let signals { downloadSettings.stopSignal = { signals.ending } }
        let run = try DownloadRun(
            store: store, home: home, library: library, configuration: settings.sync.http, settings: downloadSettings,
            attended: false)
        run.progress = progress
        let archived = try run.keepFinished()
        let outcomes = try run.drain(library.autoDownload)
        // A signal caught after the last download ended still ends the command, as it would have uncaught.
        if let signal = signals?.ending { throw DownloadError.interrupted(signal: signal) }
        return AutoDownloadReport(outcomes, archived: archived)
    }
}
