import Foundation

import ShelfCore

/// Readium audiobook manifests.
enum ManifestFuzz {
    static let url = URL(string: "https://library.example/works/1/manifest.json")!

    static func manifest(_ data: Data) {
        let manifest: AudiobookManifest
        do {
            manifest = try AudiobookManifest.parse(data, url: url)
        } catch {
            require(!error.description.isEmpty, "a refused manifest has no message")
            return
        }
        let limit = InputLimit.manifestParts.value
        require(manifest.parts.count <= limit, "\(manifest.parts.count) parts, over the limit \(limit)")
        checkSeconds(manifest.duration, "the manifest's duration")
        for (position, part) in manifest.parts.enumerated() {
            require(part.index == position, "part \(position) says it is part \(part.index)")
            let href = URL(string: part.href)
            require(href?.scheme != nil, "part \(position)'s href \(part.href.debugDescription) is not an absolute URL")
            if ["http", "https"].contains(href?.scheme?.lowercased()) {
                require(href?.host?.isEmpty == false, "part \(position)'s web URL \(part.href.debugDescription) has no host")
            }
            checkSeconds(part.duration, "part \(position)'s duration")
            if let length = part.length { require(length >= 0, "part \(position)'s length \(length) is negative") }
            _ = part.stablePath
        }
        func walk(_ chapters: [AudiobookManifest.Chapter]) {
            for chapter in chapters {
                require(manifest.parts.indices.contains(chapter.partIndex),
                        "chapter \(chapter.title.debugDescription) points at part \(chapter.partIndex) of \(manifest.parts.count)")
                checkSeconds(chapter.offset, "chapter \(chapter.title.debugDescription)'s offset")
                walk(chapter.children)
            }
        }
        walk(manifest.toc)
        walk(manifest.chapters)
        // The manifest as the store caches it (JSON) reads back the same.
        do {
            let back = try JSONDecoder().decode(AudiobookManifest.self, from: JSONEncoder().encode(manifest))
            require(back == manifest, "the manifest is not the same after a JSON round trip")
        } catch {
            require(false, "the manifest does not survive a JSON round trip: \(error)")
        }
    }

    static func checkSeconds(_ value: Double?, _ what: String) {
        guard let value else { return }
        require(OPDSDuration.seconds(value) != nil, "\(what) \(value) is not a running time in seconds")
    }
}
