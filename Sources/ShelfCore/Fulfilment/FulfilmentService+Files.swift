import Foundation

/// Audiobooks that come as files rather than a Readium manifest: one audio file (calibre, COPS, Kavita), a zip of
/// audio files, or a packaged audiobook (a zip with its `manifest.json`). A single file or a zip without a manifest
/// gets a synthetic Readium manifest, stored as the fulfilment record, so the player, positions (which name a part
/// by its href), archive and status treat it as they treat a library's manifest.
extension FulfilmentService {
    // MARK: single files

    /// The manifest of a single-file audiobook: its one part is the acquisition itself. Kept as the fulfilment
    /// record, with the acquisition's URL as its base, as a library's manifest is.
    func singleFileManifest(_ location: URL, type: String, edition: EditionRef, expiresAt: Date?) throws
        -> AudiobookManifest
    {
        let summary = try store.summary(of: edition)
        let json = Self.syntheticManifest(summary, parts: [(location.absoluteString, type, summary.title)])
        let manifest = try AudiobookManifest.parse(Data(json.utf8), url: location)
        try store.saveFulfilment(
            FulfilmentRecord(editionID: edition.rowID, manifest: json, manifestURL: location.absoluteString, expiresAt: expiresAt))
        return manifest
    }

    /// A Readium audiobook manifest for files that came without one: the reading order is `parts` (hrefs absolute,
    /// or relative to where the manifest is said to be).
    static func syntheticManifest(_ summary: EditionSummary, parts: [(href: String, type: String, title: String)]) -> String {
        func names(_ list: String) -> [String] {
            list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let metadata: [String: Any] = [
            "@type": "http://schema.org/Audiobook", "identifier": summary.id, "title": summary.title,
            "author": names(summary.authors), "narrator": names(summary.narrators), Store.syntheticManifestKey: true,
        ]
        let readingOrder: [[String: Any]] = parts.map { ["href": $0.href, "type": $0.type, "title": $0.title] }
        let root: [String: Any] = [
            "@context": "https://readium.org/webpub-manifest/context.jsonld", "metadata": metadata,
            "readingOrder": readingOrder,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// Refuses a reading order with a part that is not audio (an HTML page, a PDF), before anything is downloaded.
    static func refuseNonAudio(_ manifest: AudiobookManifest, title: String) throws(FulfilmentError) {
        for part in manifest.parts {
            if let reason = AudioTypes.whyNotAudio(type: part.type, href: part.href) {
                throw .notAudio(title: title, part: part.index + 1, reason: reason)
            }
        }
    }

    // MARK: packages and zips of audio files

    /// A packaged audiobook or a zip of audio files: the zip is downloaded (resumably) like a part, then extracted
    /// safely into place. Its parts are its manifest's, or, without one, its audio files in natural order.
    func downloadPackage(_ route: Route, summary: EditionSummary, edition: EditionRef, isUpdate: Bool) throws
        -> DownloadReport
    {
        let rowID = edition.rowID
        let (location, token) = try resolve(route)
        try store.applyLifecycle(.authorised, to: edition, reason: nil)
        let archive = home.temporary.appendingPathComponent("package-\(library.id)-\(rowID).zip")
        let headers = try token.map { ["Authorization": "Bearer \($0.accessToken)"] } ?? session.credentialHeaders(for: location)
        let results = try PartDownloader(settings: settings, configuration: http.configuration).run(
            [DownloadPart(index: 0, url: location, destination: archive, headers: headers)])
        guard case .complete? = results[0] else {
            if token == nil, case .expired(let status)? = results[0], let refusal = session.refusal(of: location, status: status) {
                throw refusal
            }
            let reason: String
            switch results[0] {
            case .failed(let text)?: reason = "the package did not download: \(text)"
            case .expired(let status)?: reason = "the package link expired (\(status))"
            default: reason = "the package did not download"
            }
            try store.applyLifecycle(.failed, to: edition, reason: reason)
            return try report(summary, edition: edition, message: "\(summary.title): \(reason). Run `shelf download \(summary.shortID)` again to resume.")
        }
        try store.applyLifecycle(.transferFinished, to: edition, reason: nil)
        let target = home.files(library: library.id, edition: rowID)
        let extracted: ExtractionReport
        do {
            extracted = try ArchiveExtractor().extract(archive, into: target)
        } catch let error as ArchiveError {
            try? FileManager.default.removeItem(at: archive)
            throw FulfilmentError.badPackage(title: summary.title, id: summary.shortID, error)
        } catch {
            try? FileManager.default.removeItem(at: archive)
            throw error
        }
        try? FileManager.default.removeItem(at: archive)
        let parts: [PartRecord]
        do {
            if let manifestFile = ArchiveExtractor().packagedManifest(in: target) {
                parts = try packagedParts(manifestFile, in: target, from: location, title: summary.title, edition: edition)
            } else {
                parts = try audioFileParts(extracted, in: target, title: summary, edition: edition)
            }
        } catch {
            // Nothing half-stored: the files of a package shelf cannot play go with it.
            try? FileManager.default.removeItem(at: target)
            throw error
        }
        try store.replaceParts(parts, of: edition)
        try store.applyLifecycle(.processed, to: edition, reason: "packaged audiobook, \(parts.count) parts")
        var done = try report(summary, edition: edition, message: "")
        done.message = "Downloaded \(summary.title): \(parts.count) part\(parts.count == 1 ? "" : "s") from its package, "
            + "\(Self.megabytes(done.bytes))."
        return done
    }

    /// The parts a package's own `manifest.json` lists, each checked to be audio and inside the package.
    private func packagedParts(_ manifestFile: URL, in target: URL, from location: URL, title: String, edition: EditionRef)
        throws -> [PartRecord]
    {
        guard let data = try? Data(contentsOf: manifestFile) else {
            throw FulfilmentError.malformedManifest(url: location.absoluteString, reason: "the package's manifest.json cannot be read")
        }
        let manifest = try AudiobookManifest.parse(data, url: manifestFile)
        if let scheme = manifest.protection { throw FulfilmentError.protected(title: title, scheme: scheme.rawValue) }
        try Self.refuseNonAudio(manifest, title: title)
        let base = target.standardizedFileURL.path + "/"
        return try manifest.parts.map { part -> PartRecord in
            let path = URL(string: part.href)?.standardizedFileURL.path ?? part.href
            guard path.hasPrefix(base), FileManager.default.fileExists(atPath: path) else {
                throw FulfilmentError.malformedManifest(
                    url: location.absoluteString, reason: "part \(part.index + 1) is not in the package")
            }
            let file = String(path.dropFirst(base.count))
            return PartRecord(editionID: edition.rowID, index: part.index, hrefPath: file, file: file, title: part.title,
                              duration: part.duration, bytes: Self.size(of: path), status: .downloaded)
        }
    }

    /// A zip with no manifest: its audio files, in natural order (`2.mp3` before `10.mp3`), are the parts, and a
    /// synthetic manifest naming them (relative to the book's folder) is kept as the fulfilment record.
    private func audioFileParts(_ extracted: ExtractionReport, in target: URL, title summary: EditionSummary,
                                edition: EditionRef) throws -> [PartRecord]
    {
        let files = extracted.files.map(\.path).filter(AudioTypes.isAudioFile).sorted(by: Self.naturallyBefore)
        guard !files.isEmpty else { throw FulfilmentError.noAudioFiles(title: summary.title) }
        let hrefs = files.map { $0.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? $0 }
        let types = files.map { "audio/" + Self.audioSubtype(AudioTypes.fileExtension($0)) }
        // A file's name is the best title it has ("03 - The Storm.mp3" is chapter "03 - The Storm").
        let titles = files.map { ($0.split(separator: "/").last.map(String.init) ?? $0).replacingOccurrences(
            of: "\\.[^.]*$", with: "", options: .regularExpression) }
        let json = Self.syntheticManifest(summary, parts: (0..<files.count).map { (hrefs[$0], types[$0], titles[$0]) })
        let manifestURL = target.appendingPathComponent("manifest.json")
        let manifest = try AudiobookManifest.parse(Data(json.utf8), url: manifestURL)
        try store.saveFulfilment(
            FulfilmentRecord(editionID: edition.rowID, manifest: json, manifestURL: manifestURL.absoluteString, expiresAt: nil))
        return zip(files, manifest.parts).map { file, part in
            PartRecord(editionID: edition.rowID, index: part.index, hrefPath: file, file: file, title: part.title,
                       duration: nil, bytes: Self.size(of: target.appendingPathComponent(file).path), status: .downloaded)
        }
    }

    private static func size(of path: String) -> Int64? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value
    }

    /// The media subtype of an audio extension, as the synthetic manifest states it.
    private static func audioSubtype(_ ext: String) -> String {
        ["mp3": "mpeg", "m4a": "mp4", "m4b": "mp4", "mp4": "mp4", "oga": "ogg", "wav": "wav"][ext] ?? ext
    }

    /// Natural order: runs of digits compare by value, the rest without regard to case.
    static func naturallyBefore(_ a: String, _ b: String) -> Bool {
        func chunks(_ text: String) -> [(isNumber: Bool, text: Substring)] {
            var result: [(isNumber: Bool, text: Substring)] = []
            var start = text.startIndex
            while start < text.endIndex {
                let digit = text[start].isASCII && text[start].isNumber
                let end = text[start...].firstIndex { ($0.isASCII && $0.isNumber) != digit } ?? text.endIndex
                result.append((isNumber: digit, text: text[start..<end]))
                start = end
            }
            return result
        }
        for (x, y) in zip(chunks(a), chunks(b)) where x.text != y.text {
            if x.isNumber && y.isNumber {
                let (p, q) = (x.text.drop { $0 == "0" }, y.text.drop { $0 == "0" })
                if p.count != q.count { return p.count < q.count }
                if p != q { return p < q }
                continue
            }
            let (p, q) = (x.text.lowercased(), y.text.lowercased())
            if p != q { return p < q }
        }
        // Equal but for case or leading zeros: fewer chunks first, then byte order, so the order is total.
        let (p, q) = (chunks(a).count, chunks(b).count)
        return p != q ? p < q : a < b
    }
}
