import DemoLibrary
import Testing

@testable import ShelfCore

/// The sync's fixed-size filter of ids seen: never "new" for an id seen, rarely "seen" for a new one.
@Suite(.timeLimit(.minutes(5))) struct SeenFilterTests {
    @Test func anIdSeenIsNeverNewAndFewNewOnesAreTakenForSeen() {
        var filter = SeenFilter()
        var hashes: [UInt64] = []
        var random = SplitMix64(seed: 31)
        var takenForSeen = 0
        for index in 0..<300_000 {
            var hasher = FNV1a()
            hasher.combine("urn:uuid:5eed0000-0000-4000-8000-\(index)-\(random.next())")
            hashes.append(hasher.value)
            if !filter.insert(hasher.value) { takenForSeen += 1 }
        }
        // About 1 in 1,000 at 300,000 ids (the type's documentation); a set of every id would say 0.
        #expect(takenForSeen < 600, "\(takenForSeen) of 300,000 new ids taken for seen")
        #expect(hashes.allSatisfy { !filter.insert($0) })
    }
}
