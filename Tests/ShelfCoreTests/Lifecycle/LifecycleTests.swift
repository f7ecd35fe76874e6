import Testing
@testable import ShelfCore

/// The expected result of every (state, event) pair, written out by hand: nil means refused.
/// `local` is where a step that fails returns to when a complete earlier copy is on disk.
private struct Row {
    var state: LifecycleState
    var event: LifecycleEvent
    var withoutCopy: LifecycleState?
    var withCopy: LifecycleState?
}

private let table: [Row] = [
    // new
    Row(state: .new, event: .feedChanged, withoutCopy: .new, withCopy: .new),
    Row(state: .new, event: .downloadRequested, withoutCopy: .authorising, withCopy: .authorising),
    Row(state: .new, event: .authorised, withoutCopy: nil, withCopy: nil),
    Row(state: .new, event: .transferFinished, withoutCopy: nil, withCopy: nil),
    Row(state: .new, event: .processed, withoutCopy: nil, withCopy: nil),
    Row(state: .new, event: .failed, withoutCopy: nil, withCopy: nil),
    Row(state: .new, event: .archiveRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .new, event: .loanEnded, withoutCopy: .new, withCopy: .new),
    Row(state: .new, event: .cleared, withoutCopy: nil, withCopy: nil),
    // updated
    Row(state: .updated, event: .feedChanged, withoutCopy: .updated, withCopy: .updated),
    Row(state: .updated, event: .downloadRequested, withoutCopy: .authorising, withCopy: .authorising),
    Row(state: .updated, event: .authorised, withoutCopy: nil, withCopy: nil),
    Row(state: .updated, event: .transferFinished, withoutCopy: nil, withCopy: nil),
    Row(state: .updated, event: .processed, withoutCopy: nil, withCopy: nil),
    Row(state: .updated, event: .failed, withoutCopy: nil, withCopy: nil),
    Row(state: .updated, event: .archiveRequested, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .updated, event: .loanEnded, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .updated, event: .cleared, withoutCopy: nil, withCopy: nil),
    // authorising
    Row(state: .authorising, event: .feedChanged, withoutCopy: .authorising, withCopy: .authorising),
    Row(state: .authorising, event: .downloadRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .authorising, event: .authorised, withoutCopy: .downloading, withCopy: .downloading),
    Row(state: .authorising, event: .transferFinished, withoutCopy: nil, withCopy: nil),
    Row(state: .authorising, event: .processed, withoutCopy: nil, withCopy: nil),
    Row(state: .authorising, event: .failed, withoutCopy: .new, withCopy: .updated),
    Row(state: .authorising, event: .archiveRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .authorising, event: .loanEnded, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .authorising, event: .cleared, withoutCopy: nil, withCopy: nil),
    // downloading
    Row(state: .downloading, event: .feedChanged, withoutCopy: .downloading, withCopy: .downloading),
    Row(state: .downloading, event: .downloadRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .downloading, event: .authorised, withoutCopy: nil, withCopy: nil),
    Row(state: .downloading, event: .transferFinished, withoutCopy: .processing, withCopy: .processing),
    Row(state: .downloading, event: .processed, withoutCopy: nil, withCopy: nil),
    Row(state: .downloading, event: .failed, withoutCopy: .new, withCopy: .updated),
    Row(state: .downloading, event: .archiveRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .downloading, event: .loanEnded, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .downloading, event: .cleared, withoutCopy: nil, withCopy: nil),
    // processing
    Row(state: .processing, event: .feedChanged, withoutCopy: .processing, withCopy: .processing),
    Row(state: .processing, event: .downloadRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .processing, event: .authorised, withoutCopy: nil, withCopy: nil),
    Row(state: .processing, event: .transferFinished, withoutCopy: nil, withCopy: nil),
    Row(state: .processing, event: .processed, withoutCopy: .downloaded, withCopy: .downloaded),
    Row(state: .processing, event: .failed, withoutCopy: .new, withCopy: .updated),
    Row(state: .processing, event: .archiveRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .processing, event: .loanEnded, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .processing, event: .cleared, withoutCopy: nil, withCopy: nil),
    // downloaded
    Row(state: .downloaded, event: .feedChanged, withoutCopy: .updated, withCopy: .updated),
    Row(state: .downloaded, event: .downloadRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .downloaded, event: .authorised, withoutCopy: nil, withCopy: nil),
    Row(state: .downloaded, event: .transferFinished, withoutCopy: nil, withCopy: nil),
    Row(state: .downloaded, event: .processed, withoutCopy: nil, withCopy: nil),
    Row(state: .downloaded, event: .failed, withoutCopy: nil, withCopy: nil),
    Row(state: .downloaded, event: .archiveRequested, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .downloaded, event: .loanEnded, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .downloaded, event: .cleared, withoutCopy: nil, withCopy: nil),
    // clearing
    Row(state: .clearing, event: .feedChanged, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .clearing, event: .downloadRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .clearing, event: .authorised, withoutCopy: nil, withCopy: nil),
    Row(state: .clearing, event: .transferFinished, withoutCopy: nil, withCopy: nil),
    Row(state: .clearing, event: .processed, withoutCopy: nil, withCopy: nil),
    Row(state: .clearing, event: .failed, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .clearing, event: .archiveRequested, withoutCopy: nil, withCopy: nil),
    Row(state: .clearing, event: .loanEnded, withoutCopy: .clearing, withCopy: .clearing),
    Row(state: .clearing, event: .cleared, withoutCopy: .new, withCopy: .new),
]

@Suite(.timeLimit(.minutes(5))) struct LifecycleTests {
    @Test func tableCoversEveryStateAndEvent() {
        let pairs = Set(table.map { "\($0.state.rawValue)/\($0.event.rawValue)" })
        #expect(pairs.count == LifecycleState.allCases.count * LifecycleEvent.allCases.count)
        #expect(table.count == pairs.count)
    }

    @Test(arguments: table.indices)
    func transition(index: Int) {
        let row = table[index]
        for (hasCopy, expected) in [(false, row.withoutCopy), (true, row.withCopy)] {
            let start = Lifecycle(state: row.state, hasLocalCopy: hasCopy)
            let result = start.transition(row.event)
            #expect(result?.state == expected, "\(row.state) + \(row.event) (copy: \(hasCopy))")
            if expected == nil {
                #expect(throws: Lifecycle.InvalidTransition.self) { try start.applying(row.event) }
            }
        }
    }

    @Test func localCopyIsTrackedThroughADownloadAndAClear() throws {
        var lifecycle = Lifecycle()
        for event in [LifecycleEvent.downloadRequested, .authorised, .transferFinished, .processed] {
            lifecycle = try lifecycle.applying(event)
        }
        #expect(lifecycle == Lifecycle(state: .downloaded, hasLocalCopy: true))
        lifecycle = try lifecycle.applying(.feedChanged)
        #expect(lifecycle == Lifecycle(state: .updated, hasLocalCopy: true))
        // A failed update falls back to the old copy, which is still there.
        lifecycle = try lifecycle.applying(.downloadRequested).applying(.failed)
        #expect(lifecycle == Lifecycle(state: .updated, hasLocalCopy: true))
        lifecycle = try lifecycle.applying(.archiveRequested).applying(.cleared)
        #expect(lifecycle == Lifecycle(state: .new, hasLocalCopy: false))
    }

    @Test func actionsFollowStateAndEntitlement() {
        func actions(_ state: LifecycleState, _ entitlement: Entitlement, borrow: Bool = false, reserve: Bool = false,
                     paid: Bool = false, draft: Bool = false) -> [EditionAction] {
            ActionContext(
                lifecycle: Lifecycle(state: state, hasLocalCopy: state == .downloaded || state == .updated),
                entitlement: entitlement, canBorrowNow: borrow, canReserve: reserve, isPaid: paid, isDraft: draft
            ).actions
        }
        #expect(actions(.new, .none, borrow: true) == [.borrow])
        #expect(actions(.new, .none, reserve: true) == [.reserve])
        #expect(actions(.new, .none, paid: true) == [.buy])
        #expect(actions(.new, .none, borrow: true, draft: true) == [])
        #expect(actions(.new, .free) == [.download])
        #expect(actions(.new, .loan) == [.download, .return])
        #expect(actions(.new, .hold) == [.return])
        #expect(actions(.new, .holdReady) == [.borrow, .return])
        #expect(actions(.downloaded, .loan) == [.listen, .archive, .return])
        #expect(actions(.downloaded, .free) == [.listen, .archive])
        #expect(actions(.updated, .loan) == [.update, .listen, .archive, .return])
        #expect(actions(.downloading, .loan) == [.return])
        #expect(actions(.clearing, .loan) == [])
    }

    /// A title's history says what happened in words: no event's Swift name (`downloadRequested`) reaches it.
    @Test func everyEventHasWordsOfItsOwnForTheHistory() throws {
        let phrases = LifecycleEvent.allCases.map(\.phrase)
        #expect(Set(phrases).count == phrases.count)
        for event in LifecycleEvent.allCases {
            #expect(event.phrase != event.rawValue && event.phrase.contains(" "), "\(event)")
            #expect(event.phrase == event.phrase.lowercased(), "\(event.phrase)")
        }
    }
}
