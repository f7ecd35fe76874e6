/// Where an edition is in its life on this machine: what the patron has locally, and what is under way.
public enum LifecycleState: String, Codable, Sendable, CaseIterable {
    /// Known from a feed; no local copy.
    case new
    /// A local copy exists, but the publisher has changed the edition since it was downloaded.
    case updated
    /// Getting permission (borrow, fulfilment link, token) before a download.
    case authorising
    /// Files are being transferred.
    case downloading
    /// Transferred files are being checked, unpacked and moved into place.
    case processing
    /// A complete local copy is on disk.
    case downloaded
    /// Local files are being removed.
    case clearing

    /// The word a patron sees.
    public var label: String {
        switch self {
        case .new: "New"
        case .updated: "Updated"
        case .authorising: "Authorising"
        case .downloading: "Downloading"
        case .processing: "Processing"
        case .downloaded: "Downloaded"
        case .clearing: "Clearing"
        }
    }

    /// Work is under way in this state; a process that died here left it behind.
    public var isInProgress: Bool {
        switch self {
        case .authorising, .downloading, .processing, .clearing: true
        case .new, .updated, .downloaded: false
        }
    }
}

/// Something that happens to an edition.
public enum LifecycleEvent: String, Codable, Sendable, CaseIterable {
    /// A sync saw the entry's `updated`, an acquisition `href` or `rel` change.
    case feedChanged
    /// The patron asked for a download (or an update of a changed edition).
    case downloadRequested
    /// Permission was granted; the transfer can start.
    case authorised
    /// Every file has arrived.
    case transferFinished
    /// The files are checked and in place.
    case processed
    /// A step failed or was interrupted; what is on disk is kept.
    case failed
    /// The patron removes the local copy but keeps the loan.
    case archiveRequested
    /// The loan ended (returned here or elsewhere, or expired): local files must go.
    case loanEnded
    /// Local files are gone.
    case cleared
}

/// An edition's lifecycle: a state and whether a complete earlier copy is on disk. A value with no I/O.
public struct Lifecycle: Codable, Sendable, Equatable, Hashable {
    public var state: LifecycleState
    /// A complete copy (possibly an older version) is on disk; decides where a failed update returns to.
    public var hasLocalCopy: Bool

    public init(state: LifecycleState = .new, hasLocalCopy: Bool = false) {
        self.state = state
        self.hasLocalCopy = hasLocalCopy
    }

    /// Why an event cannot happen in a state.
    public struct InvalidTransition: ShelfFailure, Equatable, Sendable {
        public var from: Lifecycle
        public var event: LifecycleEvent
        /// The action does not apply to the title in its state: one failure among others, never the whole run's.
        public var exitCode: ShelfExit { .notAllowed }
        /// In the patron's words, never the event's name: what could not be done, and why.
        public var description: String {
            let step = switch event {
            case .feedChanged: "record the publisher's change"
            case .downloadRequested: "download the title"
            case .authorised, .transferFinished, .processed: "go on with the download"
            case .failed: "put the title back"
            case .archiveRequested: "archive the title"
            case .loanEnded: "end the loan"
            case .cleared: "finish removing the files"
            }
            if from.state == .clearing {
                return "cannot \(step): its files are being removed, a removal a stopped shelf left half-way "
                    + "(`shelf sync` finishes it)"
            }
            return "cannot \(step) while it is \(from.state.label.lowercased())"
        }
    }

    /// The lifecycle after `event`, or `InvalidTransition` when the event makes no sense in this state.
    public func applying(_ event: LifecycleEvent) throws(InvalidTransition) -> Lifecycle {
        guard let next = transition(event) else { throw InvalidTransition(from: self, event: event) }
        return next
    }

    /// The resting state a failed or interrupted step goes back to.
    private var restingState: Lifecycle {
        hasLocalCopy ? Lifecycle(state: .updated, hasLocalCopy: true) : Lifecycle(state: .new, hasLocalCopy: false)
    }

    /// The transition table; nil marks an event that is not allowed.
    public func transition(_ event: LifecycleEvent) -> Lifecycle? {
        switch (state, event) {
        // A change in the feed only matters to a complete local copy; elsewhere it is recorded and the
        // next fulfilment step reads the new links.
        case (.downloaded, .feedChanged): return Lifecycle(state: .updated, hasLocalCopy: true)
        case (_, .feedChanged): return self

        case (.new, .downloadRequested), (.updated, .downloadRequested):
            return Lifecycle(state: .authorising, hasLocalCopy: hasLocalCopy)
        case (_, .downloadRequested): return nil

        case (.authorising, .authorised): return Lifecycle(state: .downloading, hasLocalCopy: hasLocalCopy)
        case (_, .authorised): return nil

        case (.downloading, .transferFinished): return Lifecycle(state: .processing, hasLocalCopy: hasLocalCopy)
        case (_, .transferFinished): return nil

        case (.processing, .processed): return Lifecycle(state: .downloaded, hasLocalCopy: true)
        case (_, .processed): return nil

        case (.authorising, .failed), (.downloading, .failed), (.processing, .failed): return restingState
        // An interrupted removal is finished on the next run, never undone.
        case (.clearing, .failed): return self
        case (_, .failed): return nil

        case (.downloaded, .archiveRequested), (.updated, .archiveRequested):
            return Lifecycle(state: .clearing, hasLocalCopy: true)
        case (_, .archiveRequested): return nil

        case (.new, .loanEnded): return self
        case (.clearing, .loanEnded): return self
        case (_, .loanEnded): return Lifecycle(state: .clearing, hasLocalCopy: hasLocalCopy)

        case (.clearing, .cleared): return Lifecycle(state: .new, hasLocalCopy: false)
        case (_, .cleared): return nil
        }
    }
}

/// What a patron can do with an edition.
public enum EditionAction: String, Codable, Sendable, CaseIterable {
    case buy, borrow, reserve, download, update, listen, archive, `return`
}

/// The patron's right to an edition, from the feeds.
public enum Entitlement: String, Codable, Sendable, CaseIterable {
    /// Nothing: the title must be borrowed (or reserved, or bought) first.
    case none
    /// Open access: anyone may download it.
    case free
    /// On loan to the patron.
    case loan
    /// On hold; `ready` when a copy is waiting to be borrowed.
    case hold
    case holdReady = "hold-ready"
}

/// The facts that decide which actions an edition offers.
public struct ActionContext: Sendable, Equatable {
    public var lifecycle: Lifecycle
    public var entitlement: Entitlement
    /// The feed offers a borrow link and a copy is available now.
    public var canBorrowNow: Bool
    /// The feed offers a borrow link but no copy is available: a hold can be placed.
    public var canReserve: Bool
    public var isPaid: Bool
    public var isDraft: Bool
    /// A local copy can be played (an audiobook shelf can open).
    public var isPlayable: Bool

    public init(
        lifecycle: Lifecycle, entitlement: Entitlement, canBorrowNow: Bool = false, canReserve: Bool = false,
        isPaid: Bool = false, isDraft: Bool = false, isPlayable: Bool = true
    ) {
        self.lifecycle = lifecycle
        self.entitlement = entitlement
        self.canBorrowNow = canBorrowNow
        self.canReserve = canReserve
        self.isPaid = isPaid
        self.isDraft = isDraft
        self.isPlayable = isPlayable
    }

    /// The actions allowed now, in a stable order.
    public var actions: [EditionAction] {
        var result: [EditionAction] = []
        let state = lifecycle.state
        let entitled = entitlement == .free || entitlement == .loan
        // A draft is not published yet: nothing can be acquired.
        if !isDraft && !entitled && state == .new {
            if isPaid { result.append(.buy) }
            if entitlement == .holdReady || (entitlement == .none && canBorrowNow) { result.append(.borrow) }
            if entitlement == .none && canReserve { result.append(.reserve) }
        }
        if entitled && state == .new && !isDraft { result.append(.download) }
        if entitled && state == .updated { result.append(.update) }
        if isPlayable && (state == .downloaded || state == .updated) { result.append(.listen) }
        if state == .downloaded || state == .updated { result.append(.archive) }
        if (entitlement == .loan || entitlement == .hold || entitlement == .holdReady) && state != .clearing {
            result.append(.return)
        }
        return result
    }
}

extension LifecycleEvent {
    /// What happened, in the patron's words, for a title's history (`shelf show`): never the case's name.
    public var phrase: String {
        switch self {
        case .feedChanged: "the publisher changed it"
        case .downloadRequested: "download asked for"
        case .authorised: "the library gave its permission"
        case .transferFinished: "every file arrived"
        case .processed: "files checked and in place"
        case .failed: "the download stopped"
        case .archiveRequested: "archive asked for"
        case .loanEnded: "the loan ended"
        case .cleared: "files removed"
        }
    }
}
