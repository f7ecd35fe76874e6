import Foundation
import ShelfFuzz
import Testing

/// Keeps the fuzz library honest without a sanitizer: every target takes every seed of the repo's fixtures (and
/// ../shared/fixtures-real when present) with all its invariants holding. A broken invariant stops the process.
@Suite(.timeLimit(.minutes(5))) struct FuzzSeedTests {
    /// The repo's fixtures each target is seeded with (Scripts/fuzz adds the real ones).
    static let seedFolders: [String: [String]] = [
        "opds1-feed": ["Fixtures/opds"], "opds1-entry": ["Fixtures/opds"], "opds2": ["Fixtures/opds2"],
        "manifest": ["Fixtures/fuzz/manifest"], "bearer-token": ["Fixtures/fuzz/bearer-token"],
        "authentication": ["Fixtures/fuzz/authentication"], "problem": ["Fixtures/fuzz/problem"],
        "annotations": ["Fixtures/fuzz/annotations"], "locators": ["Fixtures/fuzz/locators"],
        "progression": ["Fixtures/fuzz/progression"],
        "dates": ["Fixtures/fuzz/dates"], "archive": ["Fixtures/fuzz/archive"], "http-head": ["Fixtures/fuzz/http-head"],
    ]

    static func seeds(of target: String) -> [URL] {
        let manager = FileManager.default
        return (seedFolders[target] ?? []).flatMap { folder -> [URL] in
            let directory = PackageRoot.url.appendingPathComponent(folder)
            let names = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.sorted().filter { $0.hasSuffix(".md") == false }.map { directory.appendingPathComponent($0) }
        }
    }

    @Test("every target is seeded from the repo", arguments: ShelfFuzz.targets.keys.sorted())
    func seeded(_ target: String) {
        #expect(!Self.seeds(of: target).isEmpty, "Fixtures holds no seed for \(target)")
    }

    @Test("every target keeps its invariants on every seed", arguments: ShelfFuzz.targets.keys.sorted())
    func seedsHold(_ target: String) throws {
        var inputs = try Self.seeds(of: target).map { try Data(contentsOf: $0) }
        // Empty and cut-short inputs take the refusal paths.
        inputs += [Data()] + inputs.map { $0.prefix($0.count / 2) }
        for input in inputs { ShelfFuzz.run(target, input) }
    }
}
