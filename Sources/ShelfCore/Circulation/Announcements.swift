import Foundation

/// The announcements of a library's Authentication document, each recorded once as a notice.
public enum Announcements {
    /// Reads the library's Authentication document (known from its feeds) and records each announcement not told
    /// before; returns how many were new. A document that cannot be read is no failure of the sync: it says so in
    /// `log` and the announcements wait for the next one. Returns the document read, nil when none was.
    @discardableResult
    public static func check(
        _ library: Library, store: Store, configuration: HTTPConfiguration
    ) -> AuthenticationDocument? {
        guard let address = library.authDocumentURL, let url = URL(string: address) else { return nil }
        do {
            let response = try HTTPClient(configuration: configuration).request(
                url, headers: ["Accept": "\(AuthenticationDocument.mediaType), application/json"])
            guard (200..<300).contains(response.status) || response.status == 401 else {
                configuration.log?("announcements not read: the authentication document answered \(response.status)")
                return nil
            }
            let document = try AuthenticationDocument.parse(response.body, url: URL(string: response.url) ?? url)
            for announcement in document.announcements {
                let text = announcement.content.split(whereSeparator: \.isNewline).joined(separator: " ")
                try store.recordNotice(
                    kind: .announcement, libraryID: library.id, key: "announcement:\(announcement.id)",
                    text: "\(library.catalogTitle ?? library.name) announces: \(text)")
            }
            return document
        } catch {
            configuration.log?("announcements not read: \(error)")
            return nil
        }
    }
}
