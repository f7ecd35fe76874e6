import Foundation

import ShelfCore

/// Zip and other archives through the real extractor: nothing may land outside the destination.
enum ArchiveFuzz {
    /// A folder of its own for this process: the archive, and `out/` where the destination is made.
    static let root: URL = {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("shelf-fuzz-archive-\(getpid())", isDirectory: true)
        try? FileManager.default.removeItem(at: root)
        try! FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        // Gone when the process ends (the fuzzer's normal exit, or the test run's).
        atexit { try? FileManager.default.removeItem(at: ArchiveFuzz.root) }
        return root
    }()

    /// Small limits, so that the fuzzer reaches them.
    static let extractor = ArchiveExtractor(
        limits: ArchiveLimits(maxTotalBytes: 8 << 20, maxEntries: 64, maxCompressionRatio: 200, ratioExemptBytes: 64 << 10))

    static func archive(_ data: Data) {
        let manager = FileManager.default
        let archive = root.appendingPathComponent("input.archive")
        let out = root.appendingPathComponent("out", isDirectory: true)
        let destination = out.appendingPathComponent("book", isDirectory: true)
        try? manager.removeItem(at: out)
        try! manager.createDirectory(at: out, withIntermediateDirectories: true)
        try! data.write(to: archive)
        defer {
            try? manager.removeItem(at: out)
            try? manager.removeItem(at: archive)
        }
        let cwd = manager.currentDirectoryPath
        let cwdBefore = Set((try? manager.contentsOfDirectory(atPath: cwd)) ?? [])

        var report: ExtractionReport?
        do {
            report = try extractor.extract(archive, into: destination)
        } catch {
            require(!"\(error)".isEmpty, "a refused archive has no message")
        }

        require(manager.currentDirectoryPath == cwd, "the extraction changed the process's working directory")
        let cwdAfter = Set((try? manager.contentsOfDirectory(atPath: cwd)) ?? [])
        require(cwdAfter.isSubset(of: cwdBefore), "the extraction wrote \(cwdAfter.subtracting(cwdBefore).sorted()) into the working directory")
        let rootListing = Set((try? manager.contentsOfDirectory(atPath: root.path)) ?? [])
        require(rootListing == ["input.archive", "out"], "the extraction wrote \(rootListing.sorted()) beside the archive")
        let outListing = (try? manager.contentsOfDirectory(atPath: out.path)) ?? []
        guard let report else {
            require(outListing.isEmpty, "a refused archive left \(outListing.sorted()) behind")
            return
        }
        require(outListing == ["book"], "the extraction left \(outListing.sorted()) beside the destination")
        let base = destination.resolvingSymlinksInPath().path + "/"
        var found = Set<String>()
        var bytes: Int64 = 0
        if let walker = manager.enumerator(atPath: destination.path) {
            while let relative = walker.nextObject() as? String {
                let full = destination.appendingPathComponent(relative)
                let attributes = try? manager.attributesOfItem(atPath: full.path)
                let type = attributes?[.type] as? FileAttributeType
                require(type == .typeRegular || type == .typeDirectory, "\(relative) was extracted as \(String(describing: type))")
                let real = full.resolvingSymlinksInPath().path
                require(real.hasPrefix(base), "\(relative) resolves to \(real), outside the destination")
                if type == .typeRegular {
                    found.insert(relative)
                    bytes += (attributes?[.size] as? NSNumber)?.int64Value ?? 0
                }
            }
        }
        let reported = Set(report.files.map(\.path))
        require(found == reported, "the files on disk \(found.sorted()) are not the files reported \(reported.sorted())")
        require(bytes == report.totalBytes, "\(bytes) bytes on disk, \(report.totalBytes) reported")
        require(report.totalBytes <= extractor.limits.maxTotalBytes, "\(report.totalBytes) bytes extracted, over the limit")
        if let manifest = extractor.packagedManifest(in: destination) {
            require(manifest.resolvingSymlinksInPath().path.hasPrefix(base), "the packaged manifest is outside the destination")
        }
    }
}
