import Foundation

import ShelfCore

/// Readium audiobook manifests.
enum ManifestFuzz {
    static let url = URL(string: "https://library.example/works/1/manifest.json")!

    static func manifest(_ data: Data) {
        checkShape(data)
        let lists: [String: InputLimit] = ["readingOrder": .manifestParts, "spine": .manifestParts]
        let violation = InputLimit.jsonViolation(in: data, lists: lists)
        let manifest: AudiobookManifest
        do {
            manifest = try AudiobookManifest.parse(data, url: url)
        } catch {
            require(!error.description.isEmpty, "a refused manifest has no message")
            // A document past a size or count limit is refused for that limit, before anything else is read.
            if let violation {
                require(error == .malformedManifest(url: url.absoluteString, reason: violation.reason()),
                        "a manifest past the limit on \(violation.name) was refused for another reason: \(error)")
            }
            return
        }
        require(violation == nil, "a manifest past the limit on \(violation?.name ?? "") was read")
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

    /// The one-pass shape never counts fewer items, nor a shallower nesting, than the parsed document holds: a
    /// document it undercounts would pass a limit unseen and be built into a tree of any size.
    static func checkShape(_ data: Data) {
        let unbounded = JSONShape.Bounds(depth: InputLimit.jsonDepth.value, items: .max, perContainer: .max)
        let shape = (JSONShape.utf8(of: data) ?? data).withUnsafeBytes { JSONShape.measure($0, stoppingAbove: unbounded) }
        guard shape.depth <= InputLimit.jsonDepth.value,
            let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return }
        var items = 0
        var largest = 0
        var depth = 0
        func walk(_ value: Any, level: Int) {
            let children: [Any]
            if let object = value as? [String: Any] {
                children = Array(object.values)
            } else if let array = value as? [Any] {
                children = array
            } else {
                return
            }
            depth = max(depth, level)
            items += children.count
            largest = max(largest, children.count)
            for child in children { walk(child, level: level + 1) }
        }
        walk(tree, level: 1)
        // (A later duplicate key may replace a deeper value, so the pass may see more than the tree keeps.)
        require(shape.depth >= depth, "the shape pass says depth \(shape.depth) of a document nested \(depth) deep")
        require(shape.items >= items, "the shape pass counted \(shape.items) items of a document holding \(items)")
        require(shape.largest >= largest, "the shape pass says the largest list holds \(shape.largest), not \(largest)")
    }

    static func checkSeconds(_ value: Double?, _ what: String) {
        guard let value else { return }
        require(OPDSDuration.seconds(value) != nil, "\(what) \(value) is not a running time in seconds")
    }
}
