import Foundation

/// Why a title could not be fulfilled (turned into files on disk).
public enum FulfilmentError: ShelfFailure, Equatable {
    /// The title is protected by a DRM scheme shelf does not implement.
    case protected(title: String, scheme: String)
    case malformedManifest(url: String, reason: String)
    case malformedToken(url: String, reason: String)
    /// No acquisition path ends in something shelf can download.
    case noSupportedFormat(title: String, offered: [String])
    /// An ebook (or other non-audio title): shelf downloads and plays audiobooks.
    case notAudiobook(title: String, medium: String)
    /// Another shelf is downloading the title now.
    case busy(title: String, pid: Int32?)
    /// `shelf download` of a title the patron has no loan of (and that is not free).
    case notOnLoan(title: String, reason: String)
    /// `shelf archive` of a title with no local files.
    case nothingToArchive(title: String, id: String)
    /// A part of the reading order is not audio (an HTML page, a PDF): refused before anything is downloaded.
    case notAudio(title: String, part: Int, reason: String)
    /// A zip with neither a manifest nor an audio file.
    case noAudioFiles(title: String)
    /// The library refused the bearer token it had just issued (401), also after a new one was fetched.
    case tokenRefused(url: String, reason: String)
    /// A title's package could not be extracted: the archive's own reason, said of the title.
    case badPackage(title: String, id: String, ArchiveError)
    /// A fulfilment or manifest link the library answers 403, 404 or 410 to without a problem document: the link
    /// the last sync stored is stale, not the library's URL.
    case linkGone(url: String, status: Int)

    public var exitCode: ShelfExit {
        switch self {
        case .busy: .busy
        case .tokenRefused: .notPermitted
        case .linkGone: .noSuchPage
        case .badPackage(_, _, let reason): reason.exitCode
        case .nothingToArchive, .notOnLoan: .notAllowed
        case .protected: .protectedContent
        case .malformedManifest, .malformedToken: .badData
        case .noSupportedFormat, .notAudiobook, .notAudio, .noAudioFiles: .protectedContent
        }
    }

    public var description: String {
        switch self {
        case .protected(let title, let scheme):
            "\(title) is protected by \(scheme) DRM; shelf can play open and bearer-token audiobooks only"
        case .malformedManifest(let url, let reason):
            "the audiobook manifest from \(Redaction.url(url)) is unusable (\(reason)); try again later or tell the library"
        case .malformedToken(let url, let reason):
            "the bearer-token document from \(Redaction.url(url)) is unusable (\(reason)); try again later"
        case .notAudiobook(let title, let medium):
            "\(title) is an \(medium), not an audiobook; shelf downloads and plays audiobooks only"
        case .busy(let title, let pid):
            "another shelf is downloading \(title) now\(pid.map { " (pid \($0))" } ?? ""); try again when it finishes"
        case .notOnLoan(let title, let reason):
            "cannot download \(title): \(reason)"
        case .nothingToArchive(let title, let id):
            "cannot archive \(title): it has no downloaded files on this computer (`shelf download \(id)` fetches them)"
        case .badPackage(let title, let id, let reason):
            switch reason {
            case .unreadable(_, let why):
                "cannot read the package of \(title) (\(why)); run `shelf download \(id)` to fetch it again"
            case .corrupt(_, let why):
                "the package of \(title) is not a readable zip or tar archive (\(why)); run `shelf download \(id)` to "
                    + "fetch it again, and tell the library if it goes on"
            default: "cannot use the package of \(title): \(reason)"
            }
        case .linkGone(let url, let status):
            "the library no longer serves the title at \(Redaction.url(url)) (\(status)); run `shelf sync` to refresh its "
                + "links, then download it again"
        case .notAudio(let title, let part, let reason):
            "\(title) cannot be played: part \(part) of its reading order is not audio (\(reason)); nothing was kept"
        case .tokenRefused(let url, let reason):
            "\(Redaction.url(url)) refused the library's own fulfilment token (\(reason)), also a new one; try again later, or `shelf login` again if it goes on"
        case .noAudioFiles(let title):
            "the package of \(title) holds neither a manifest.json nor an audio file; shelf plays audiobooks only"
        case .noSupportedFormat(let title, let offered):
            "\(title) is offered only as \(offered.joined(separator: ", ")); shelf can play open and bearer-token audiobooks only"
        }
    }
}

extension ShelfFailure {
    /// Whether a download that failed this way should leave the download queue: a title that can never be
    /// downloaded leaves it; one that may work later stays queued (offline, busy, a server error, a stale link the
    /// next sync refreshes, a sign-in to give again).
    public var endsQueuedDownload: Bool {
        switch self as any ShelfFailure {
        case FulfilmentError.busy, FulfilmentError.linkGone: false
        case CirculationError.notSignedIn, CirculationError.signInRefused, CirculationError.signInNeeded,
            CirculationError.credentialsRejected, CirculationError.passwordRejected,
            CirculationError.credentialsForAnotherURL:
            false
        case CirculationError.refused(let status, _) where status >= 500 || status == 429: false
        default: self is FulfilmentError || self is CirculationError
        }
    }
}
