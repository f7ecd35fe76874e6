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

    public var exitCode: ShelfExit {
        switch self {
        case .protected: .protectedContent
        case .malformedManifest, .malformedToken: .badData
        case .noSupportedFormat, .notAudiobook: .protectedContent
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
        case .noSupportedFormat(let title, let offered):
            "\(title) is offered only as \(offered.joined(separator: ", ")); shelf can play open and bearer-token audiobooks only"
        }
    }
}

/// A DRM scheme shelf recognises and declines.
public enum ProtectionScheme: String, Sendable, Codable, CaseIterable {
    case findaway = "Findaway"
    case lcp = "Readium LCP"
    case overdrive = "OverDrive"
    case feedbooks = "Feedbooks"
    case adobe = "Adobe"

    /// The scheme a media type or scheme URI stands for, if any.
    public static func recognise(_ text: String) -> ProtectionScheme? {
        let value = text.lowercased()
        if value.contains("findaway") || value.hasSuffix("/drm/scheme/fae") { return .findaway }
        if value.contains("lcp") { return .lcp }
        if value.contains("overdrive") { return .overdrive }
        if value.contains("feedbooks.com/audiobooks/access-restriction") { return .feedbooks }
        if value.contains("adobe.adept") { return .adobe }
        return nil
    }
}
