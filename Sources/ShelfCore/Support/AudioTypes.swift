import Foundation

/// Which media types and file names are audio shelf can play: one place for the classification of titles, the
/// single-file route and the check of a reading order before anything is downloaded.
public enum AudioTypes {
    /// File extensions of audio containers FFmpeg plays (`.mp4` included: Readium manifests use it for AAC).
    public static let audioExtensions: Set<String> = [
        "mp3", "m4a", "m4b", "mp4", "aac", "ogg", "oga", "opus", "flac", "wav", "wma", "mka", "webm", "spx", "mp2",
    ]
    /// Extensions that name a document, never audio, whatever type a catalog gives the link.
    public static let documentExtensions: Set<String> = [
        "html", "htm", "xhtml", "pdf", "epub", "txt", "json", "xml", "jpg", "jpeg", "png", "gif", "svg", "css", "js",
        "mobi", "azw3", "cbz", "cbr", "doc", "docx", "rtf",
    ]
    /// Types that say nothing about the content; the file name decides then.
    private static let genericTypes: Set<String> = ["application/octet-stream", "binary/octet-stream"]

    /// The media type without parameters, lower-cased (`audio/mpeg; codecs=mp3` → `audio/mpeg`).
    public static func bare(_ type: String) -> String {
        (type.split(separator: ";", maxSplits: 1).first ?? "").trimmingSpaces().lowercased()
    }

    /// Whether a media type is audio (`audio/mpeg`, `audio/x-m4b`, `audio/ogg; codecs=opus`…).
    public static func isAudio(_ type: String) -> Bool {
        // An ASCII type (any a catalog gives) is read by its bytes, without making the bare type: this runs on every
        // acquisition type of every entry a sync reads.
        let ascii = type.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            guard let start = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return false }
            // `bare` splits off the parameters leaving out an empty first part: ";audio/mpeg" is audio there.
            guard bytes[start] != UInt8(ascii: ";") else { return nil }
            guard bytes.count - start >= 6 else { return false }
            return zip(bytes[start...], "audio/".utf8).allSatisfy { ($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) == $1 }
        }
        if let ascii = ascii ?? nil { return ascii }
        return bare(type).hasPrefix("audio/")
    }

    /// Whether a media type makes a title an audiobook: audio itself, or a Readium audiobook document.
    public static func isAudiobookType(_ type: String) -> Bool {
        type.containsIgnoringASCIICase("audiobook") || isAudio(type)
    }

    /// The lower-cased extension of the last path segment of `href` (query and fragment ignored), or "".
    public static func fileExtension(_ href: String) -> String {
        let path = URLComponents(string: href)?.path ?? href
        guard let last = path.split(separator: "/").last, let dot = last.lastIndex(of: ".") else { return "" }
        return String(last[last.index(after: dot)...]).lowercased()
    }

    /// The extension a part of this type is saved with (`audio/x-m4b` → `m4b`); mp3 when the type says nothing.
    public static func fileExtension(forType type: String?) -> String {
        let type = type.map(bare) ?? ""
        let known: [(String, String)] = [
            ("m4b", "m4b"), ("mp4", "m4a"), ("m4a", "m4a"), ("aac", "aac"), ("opus", "opus"), ("ogg", "ogg"),
            ("vorbis", "ogg"), ("flac", "flac"), ("wav", "wav"), ("webm", "webm"),
        ]
        return known.first { type.contains($0.0) }?.1 ?? "mp3"
    }

    /// The audio type each audio extension implies, for links a catalog types only `application/octet-stream`.
    static let typesByExtension: [String: String] = [
        "mp3": "audio/mpeg", "mp2": "audio/mpeg", "m4b": "audio/x-m4b", "m4a": "audio/mp4", "mp4": "audio/mp4",
        "aac": "audio/aac", "ogg": "audio/ogg", "oga": "audio/ogg", "spx": "audio/ogg", "opus": "audio/opus",
        "flac": "audio/flac", "wav": "audio/wav", "wma": "audio/x-ms-wma", "mka": "audio/x-matroska", "webm": "audio/webm",
    ]

    /// The audio type of a link whose type says nothing (absent, or `application/octet-stream`: a static catalog's
    /// m4b served by a plain web server) while its href or title names an audio file (`book.m4b`); nil otherwise.
    /// The file's bytes are checked when it arrives (`whyNotAudio(head:)`).
    public static func typeByName(type: String?, href: String, title: String?) -> String? {
        if let type, !type.trimmingSpaces().isEmpty, !genericTypes.contains(bare(type)) { return nil }
        for name in [href, title ?? ""] where !name.isEmpty {
            if let audio = typesByExtension[fileExtension(name)] { return audio }
            // A title is a name, not a URL: its last dot decides.
            if name == title, let dot = name.lastIndex(of: "."),
               let audio = typesByExtension[name[name.index(after: dot)...].trimmingSpaces().lowercased()]
            {
                return audio
            }
        }
        return nil
    }

    /// Why a file whose first bytes are `head` is not audio, or nil when it may be. Only what is surely no audio is
    /// refused: text (an HTML error page, JSON, XML), a PDF, a zip or an image; binary data of an unknown kind passes,
    /// FFmpeg being the judge of that.
    public static func whyNotAudio(head: Data) -> String? {
        let bytes = [UInt8](head.prefix(512))
        guard !bytes.isEmpty else { return "it is empty" }
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + magic.count && Array(bytes[offset..<(offset + magic.count)]) == magic
        }
        if starts(Array("%PDF".utf8)) { return "it is a PDF" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "it is a zip archive" }
        if starts([0x89, 0x50, 0x4E, 0x47]) || starts([0xFF, 0xD8, 0xFF]) || starts(Array("GIF8".utf8)) {
            return "it is an image"
        }
        // Text: no control byte but white space (audio headers and frames hold zeros and other control bytes;
        // 512 bytes of audio without one are not to be met).
        let isText = bytes.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard isText else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if looksLikeHTML(Data(bytes)) || text.contains("<body") { return "it is an HTML page" }
        if text.hasPrefix("<") { return "it is an XML document" }
        if text.hasPrefix("{") || text.hasPrefix("[") { return "it is a JSON document" }
        return "it is text"
    }

    /// Whether a body begins like an HTML page (a doctype or an `<html>` in its first 512 bytes), whatever type it
    /// was served as: a captive portal, an error page.
    public static func looksLikeHTML(_ body: Data) -> Bool {
        let head = String(decoding: body.prefix(512), as: UTF8.self).lowercased()
        return head.contains("<!doctype html") || head.contains("<html")
    }

    /// Whether a file name is an audio file by its extension.
    public static func isAudioFile(_ name: String) -> Bool { audioExtensions.contains(fileExtension(name)) }

    /// Why a reading-order part is not audio, or nil when it may be: its type, when it names one, must be audio;
    /// a generic or absent type leaves it to the extension; a document extension is never audio.
    public static func whyNotAudio(type: String?, href: String) -> String? {
        let ext = fileExtension(href)
        if documentExtensions.contains(ext) { return "its file is .\(ext)" }
        if let type, !type.isEmpty, !genericTypes.contains(bare(type)) {
            return isAudio(type) ? nil : "it is \(bare(type))"
        }
        if ext.isEmpty || audioExtensions.contains(ext) { return nil }
        return "its file is .\(ext)"
    }
}
