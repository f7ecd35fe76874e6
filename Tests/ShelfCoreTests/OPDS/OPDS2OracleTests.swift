import Foundation
import ShelfSpawn
import Testing

@testable import ShelfCore

/// Compares shelf's OPDS 2 parser with The Palace Project's own (`palace-webpub-manifest-parser` from PyPI, run by
/// Scripts/opds2-oracle) on every document in Fixtures/opds2. Runs when `SHELF_OPDS2_ORACLE` names a Python that has
/// the package (the script's header says how to make one); CI does not depend on it.
@Suite(
    "OPDS 2 parser against Palace's parser",
    .enabled(if: ProcessInfo.processInfo.environment["SHELF_OPDS2_ORACLE"] != nil,
             "SHELF_OPDS2_ORACLE is not set; the comparison with palace-webpub-manifest-parser is skipped"),
    .timeLimit(.minutes(5)))
struct OPDS2OracleTests {
    struct Publication: Decodable {
        struct Acquisition: Decodable, Equatable {
            var rel: String
            var href: String
            var paths: [[String]]
            var state: String?
        }

        var id: String?
        var title: String?
        var authors: [String]
        var acquisitions: [Acquisition]
    }

    private func oracle(_ files: [URL]) throws -> [String: [Publication]] {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: ProcessInfo.processInfo.environment["SHELF_OPDS2_ORACLE"]!)
        process.arguments = [FixturePaths.packageRoot.appendingPathComponent("Scripts/opds2-oracle").path] + files.map(\.path)
        process.standardError = FileHandle.nullDevice
        let data = try process.runReadingOutput()
        #expect(process.terminationStatus == 0)
        // A file Palace's parser gives up on maps to an error object, which does not decode as a list: left out.
        let raw = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        var result: [String: [Publication]] = [:]
        for (name, value) in raw where value is [Any] {
            let json = try JSONSerialization.data(withJSONObject: value)
            result[name] = try JSONDecoder().decode([Publication].self, from: json)
        }
        return result
    }

    @Test("identifiers, titles, authors and acquisitions (relation, href, media-type paths, state) agree")
    func agrees() throws {
        let directory = FixturePaths.packageRoot.appendingPathComponent("Fixtures/opds2")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            .filter { $0.hasSuffix(".json") }.map { directory.appendingPathComponent($0) }
        let theirs = try oracle(files)
        #expect(theirs.count >= files.count - 1, "Palace's parser read too few of the files: \(theirs.keys.sorted())")
        var compared = 0
        for file in files {
            guard let publications = theirs[file.path] else { continue }
            let (_, ours) = try parseOPDS2(file.lastPathComponent)
            #expect(ours.count == publications.count, "\(file.lastPathComponent)")
            for (mine, palace) in zip(ours, publications) {
                // Palace's parser drops an identifier that is not a URI; where it kept one, it must be ours.
                if let id = palace.id { #expect(mine.id == id, "\(file.lastPathComponent)") }
                #expect(mine.title == (palace.title ?? ""), "\(file.lastPathComponent) \(mine.id)")
                #expect(mine.authors.map(\.name) == palace.authors, "\(file.lastPathComponent) \(mine.id)")
                let acquisitions = mine.acquisitions.map {
                    Publication.Acquisition(rel: $0.rel, href: $0.href, paths: $0.paths, state: $0.availability?.status)
                }
                #expect(acquisitions == palace.acquisitions, "\(file.lastPathComponent) \(mine.id)")
                compared += 1
            }
        }
        #expect(compared >= 15)
    }
}
