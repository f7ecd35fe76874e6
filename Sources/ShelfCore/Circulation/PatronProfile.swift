import Foundation

/// A library's patron profile, as Palace's User Profile Management Protocol serves it (`/patrons/me/`, linked from
/// the Authentication document): shelf reads and writes its one setting, `simplified:synchronize_annotations`.
public enum PatronProfile {
    public static let rel = "http://librarysimplified.org/terms/rel/user-profile"
    public static let mediaType = "application/vnd.librarysimplified-user-profile+json"
    static let synchronizeKey = "simplified:synchronize_annotations"
    /// The largest profile read: 256 KB (a real one is a few hundred bytes).
    static let maxBytes: Int64 = 256 * 1024

    /// The profile's `simplified:synchronize_annotations`: true, false, or nil when unset (or not a boolean).
    static func synchronizeAnnotations(in body: Data) -> Bool?? {
        struct Profile: Decodable { var settings: [String: StrictJSON]? }
        // Decoded as JSON values, so `true` is a setting and 1 is not (Foundation on Linux casts one to the other).
        guard let profile = try? JSONDecoder().decode(Profile.self, from: body) else { return nil }
        guard case .bool(let value)? = profile.settings?[synchronizeKey] else { return .some(nil) }
        return .some(value)
    }

    /// Reads the signed-in patron's profile, when the library's document links one, and records its setting with
    /// the library. When it turns positions off for a library whose switch is unset, the patron is told once.
    /// Nothing is thrown: a profile that cannot be read is said in `log` and the last setting read stays.
    public static func refresh(
        _ library: Library, document: AuthenticationDocument, store: Store, home: Home, configuration: HTTPConfiguration
    ) {
        guard let address = document.profileURL, let url = URL(string: address) else {
            if library.profileURL != nil { try? store.setProfile(libraryID: library.id, url: nil, synchronize: nil) }
            return
        }
        var configuration = configuration
        configuration.maxBodyBytes = min(configuration.maxBodyBytes, maxBytes)
        do {
            let session = try LibrarySession(library: library, credentialStore: CredentialStore(home: home), configuration: configuration)
            guard session.isSignedIn else { return }
            let response = try session.send(url, headers: ["Accept": "\(mediaType), application/json"])
            guard (200..<300).contains(response.status), let setting = synchronizeAnnotations(in: response.body) else {
                configuration.log?("the patron profile was not read: it answered \(response.status)")
                return
            }
            let before = try store.setProfile(libraryID: library.id, url: address, synchronize: setting)
            if setting == false && before != false && library.syncPositions == nil {
                try store.recordNotice(
                    kind: .syncWarning, libraryID: library.id,
                    key: "profile-positions-off:\(Int(Date().timeIntervalSince1970))",
                    text: "\(library.name): your library account is set not to keep reading positions, so shelf keeps "
                        + "them on this computer only; `shelf library set \(library.name) --sync-positions on` syncs "
                        + "them again (and tells the library)")
            }
        } catch {
            configuration.log?("the patron profile was not read: \(error)")
        }
    }

    /// Tells the library the patron syncs positions (`simplified:synchronize_annotations` true), when its profile is
    /// known and does not say so already; returns whether it was told.
    public static func optIn(
        _ library: Library, store: Store, home: Home, configuration: HTTPConfiguration
    ) throws -> Bool {
        guard let address = library.profileURL, let url = URL(string: address), library.profileSyncAnnotations != true
        else { return false }
        let session = try LibrarySession(library: library, credentialStore: CredentialStore(home: home), configuration: configuration)
        guard session.isSignedIn else { throw CirculationError.notSignedIn(library: library.name) }
        let body = Data(#"{"settings": {"\#(synchronizeKey)": true}}"#.utf8)
        let response = try session.send(
            url, method: "PUT", headers: ["Content-Type": mediaType, "Accept": "\(mediaType), application/json"], body: body)
        if response.status == 401 { throw CirculationError.unauthorised(library.name, signedIn: session.isSignedIn) }
        guard (200..<300).contains(response.status) else {
            throw NetworkError.httpStatus(url: Redaction.url(url.absoluteString), status: response.status)
        }
        try store.setProfile(libraryID: library.id, url: address, synchronize: true)
        return true
    }
}
