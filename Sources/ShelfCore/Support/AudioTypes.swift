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
