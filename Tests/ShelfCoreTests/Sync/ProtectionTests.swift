import Foundation
import Testing
@testable import ShelfCore

private let minotaur = PackageRoot.url.deletingLastPathComponent()
    .appendingPathComponent("shared/fixtures-real/opds/minotaur-20231113.xml")

@Suite(.timeLimit(.minutes(5))) struct ProtectionTests {
    @Test(.enabled(if: FileManager.default.fileExists(atPath: minotaur.path),
                   "../shared/fixtures-real is absent; the minotaur feed is skipped"))
    func everyAudiobookInTheMinotaurFeedIsMarkedPlayableOrProtected() throws {
        var records: [EntryRecord] = []
        _ = try OPDSParser().parse(file: minotaur) { records.append(EntryRecord($0)) }
        let audiobooks = records.filter { $0.medium == "audiobook" }
        #expect(audiobooks.count == 123)
        var counts: [String: Int] = [:]
        for record in audiobooks { counts[record.protection ?? "playable", default: 0] += 1 }
        // Every Findaway title is protected; a title with a bearer-token path is playable even if it also
        // offers LCP or Feedbooks.
        #expect(counts["Findaway"] == 59)
        #expect(counts["playable", default: 0] >= 18)
        #expect(counts.values.reduce(0, +) == 123)
        for record in audiobooks where record.protection == nil {
            #expect(record.entry.acquisitions.contains { acquisition in
                acquisition.paths.contains { $0.contains(BearerToken.mediaType) || $0.first == "application/audiobook+json" }
            }, "\(record.entry.title)")
        }
    }
}
