import Foundation

/// One place in a work's holds queue: a patron of the demo, or another, unnamed patron of the library.
enum DemoHolder: Hashable, Sendable {
    case anonymous
    case patron(String)
}

extension DemoState {
    // MARK: Clock and patrons

    /// The library's clock: the real time plus whatever `advanceClock(by:)` added.
    public var now: Date { Date().addingTimeInterval(clockOffset) }

    /// Moves the library's clock forward, ending the loans and ready holds that fall due.
    public func advanceClock(by seconds: TimeInterval) {
        clockOffset += seconds
        settle()
    }

    /// The first configured patron, who gets the starting shelf.
    public var patron: DemoPatron { patrons[0] }

    /// Every patron, with loans and holds that fell due already ended.
    public func patronsSettled() -> [DemoPatron] {
        settle()
        return patrons
    }

    /// The patron with this library card.
    public func patron(named username: String) -> DemoPatron? {
        settle()
        return patrons.first { $0.username == username }
    }

    // MARK: Circulation

    /// Borrows a work for a patron: a loan when a copy is free (or set aside for their hold),
    /// otherwise a place at the end of the holds queue. Throws `DemoCirculationError`.
    @discardableResult
    public func borrow(_ id: String, as username: String) throws -> DemoCirculationResult {
        settle()
        guard let p = patrons.firstIndex(where: { $0.username == username }) else {
            throw DemoCirculationError.unknownPatron(username)
        }
        guard let title = catalog.title(id: id) else { throw DemoCirculationError.notFound(id) }
        guard !title.draft else { throw DemoCirculationError.draft(id) }
        guard !title.license.openAccess, title.price == nil else { throw DemoCirculationError.noLicenses(id) }
        let loanCount = patrons[p].loans.count { $0.kind == .loan }
        let holdCount = patrons[p].loans.count { $0.kind == .hold }
        var queue = waitingQueue(id)
        let start = DemoDates.wholeSeconds(now)
        let loan = DemoLoan(titleID: id, kind: .loan, start: start, end: start.addingTimeInterval(configuration.loanDuration))

        if let existing = patrons[p].loans.firstIndex(where: { $0.titleID == id }) {
            let item = patrons[p].loans[existing]
            if item.kind == .loan { throw DemoCirculationError.loanAlreadyExists(id) }
            guard item.isReady else { throw DemoCirculationError.holdAlreadyExists(id) }
            guard loanCount < configuration.loanLimit else { throw DemoCirculationError.loanLimitReached(configuration.loanLimit) }
            // The copy set aside for the hold becomes the loan: nothing changes hands in the pool.
            patrons[p].loans[existing] = loan
            commit(id, queue: queue, copiesDelta: 0)
            return DemoCirculationResult(titleID: id, item: loan, created: true)
        }
        if title.license.copiesAvailable > 0 {
            guard loanCount < configuration.loanLimit else { throw DemoCirculationError.loanLimitReached(configuration.loanLimit) }
            patrons[p].loans.append(loan)
            commit(id, queue: queue, copiesDelta: -1)
            return DemoCirculationResult(titleID: id, item: loan, created: true)
        }
        guard holdCount < configuration.holdLimit else { throw DemoCirculationError.holdLimitReached(configuration.holdLimit) }
        queue.append(.patron(username))
        patrons[p].loans.append(DemoLoan(titleID: id, kind: .hold, start: start))
        commit(id, queue: queue, copiesDelta: 0)
        return DemoCirculationResult(titleID: id, item: patrons[p].loans.last, created: true)
    }

    /// Returns a patron's loan (the copy goes to the first in the queue, or back to the pool) or
    /// cancels their hold (those behind move up). Throws `DemoCirculationError`.
    @discardableResult
    public func revoke(_ id: String, as username: String) throws -> DemoCirculationResult {
        settle()
        guard let p = patrons.firstIndex(where: { $0.username == username }) else {
            throw DemoCirculationError.unknownPatron(username)
        }
        guard catalog.title(id: id) != nil else { throw DemoCirculationError.notFound(id) }
        guard let index = patrons[p].loans.firstIndex(where: { $0.titleID == id }) else {
            throw DemoCirculationError.noActiveLoan(id)
        }
        release(patron: p, item: index)
        return DemoCirculationResult(titleID: id, item: nil, created: false)
    }

    /// Ends every loan and ready hold that has fallen due on the library's clock.
    func settle() {
        let now = self.now
        var changed = true
        while changed {
            changed = false
            for p in patrons.indices {
                let due = patrons[p].loans.firstIndex { item in
                    (item.kind == .loan || item.isReady) && (item.end ?? .distantFuture) <= now
                }
                if let due {
                    release(patron: p, item: due)
                    changed = true
                }
            }
        }
    }

    /// Takes an item off a patron's shelf and passes on what it held.
    private func release(patron p: Int, item index: Int) {
        let item = patrons[p].loans[index]
        let id = item.titleID
        var queue = waitingQueue(id)
        patrons[p].loans.remove(at: index)
        var copiesDelta = 0
        if item.kind == .loan || item.isReady {
            // A copy comes free: the first in line gets it, or it goes back on the shelf.
            if queue.isEmpty {
                copiesDelta = 1
            } else if case .patron(let next) = queue.removeFirst(),
                      let q = patrons.firstIndex(where: { $0.username == next }),
                      let hold = patrons[q].loans.firstIndex(where: { $0.titleID == id && $0.kind == .hold }) {
                let since = DemoDates.wholeSeconds(now)
                patrons[q].loans[hold].position = 0
                patrons[q].loans[hold].start = since
                patrons[q].loans[hold].end = since.addingTimeInterval(configuration.holdReadyDuration)
            }
            // An unnamed patron first in line simply borrows the copy.
        } else {
            queue.removeAll { $0 == .patron(patrons[p].username) }
        }
        commit(id, queue: queue, copiesDelta: copiesDelta)
    }

    /// The waiting queue for a work, padded or trimmed with unnamed patrons to match its pool.
    /// Call it before changing anyone's shelf, since it reads the ready holds.
    private func waitingQueue(_ id: String) -> [DemoHolder] {
        var queue = queues[id] ?? []
        guard let pool = catalog.title(id: id)?.license else { return queue }
        let wanted = max(0, pool.holdsTotal - readyHolds(id))
        while queue.count < wanted { queue.append(.anonymous) }
        while queue.count > wanted, let last = queue.lastIndex(of: .anonymous) { queue.remove(at: last) }
        return queue
    }

    private func readyHolds(_ id: String) -> Int {
        patrons.reduce(0) { sum, patron in sum + patron.loans.count { $0.titleID == id && $0.isReady } }
    }

    /// Stores a work's queue, renumbers the holds in it and updates the work's pool (which
    /// changes its crawlable page, so the page's ETag and Last-Modified move).
    private func commit(_ id: String, queue: [DemoHolder], copiesDelta: Int) {
        queues[id] = queue
        let copiesTotal = catalog.title(id: id)?.license.copiesTotal ?? 1
        let now = DemoDates.wholeSeconds(self.now)
        for (index, holder) in queue.enumerated() {
            guard case .patron(let username) = holder,
                  let p = patrons.firstIndex(where: { $0.username == username }),
                  let hold = patrons[p].loans.firstIndex(where: { $0.titleID == id && $0.kind == .hold })
            else { continue }
            let position = index + 1
            guard patrons[p].loans[hold].position != position else { continue }
            patrons[p].loans[hold].position = position
            // An estimate: each copy ahead in line turns over once a loan period.
            let wait = configuration.loanDuration * Double(position) / Double(max(1, copiesTotal))
            patrons[p].loans[hold].end = now.addingTimeInterval(wait.rounded())
        }
        let ready = readyHolds(id)
        _ = try? apply(id: id, stamp: nextStamp()) { title in
            title.license.holdsTotal = queue.count + ready
            title.license.copiesAvailable = min(
                title.license.copiesTotal, max(0, title.license.copiesAvailable + copiesDelta)
            )
        }
    }

    /// Places the starting shelf in the catalog's pools. The catalog's counts already include the
    /// starting shelf where they can: a loan is one of the copies out, a hold one of the places in
    /// line; only when a pool has none to spare does the shelf take a copy or add a place.
    static func seatStartingShelf(
        _ loans: [DemoLoan], for username: String, catalog: inout DemoCatalog, queues: inout [String: [DemoHolder]]
    ) -> [DemoLoan] {
        var seated: [DemoLoan] = []
        for var item in loans {
            guard let position = catalog.position(of: item.titleID) else { continue }
            var title = catalog[position]
            switch item.kind {
            case .loan:
                if title.license.copiesAvailable >= title.license.copiesTotal {
                    title.license.copiesAvailable = max(0, title.license.copiesAvailable - 1)
                }
            case .hold:
                let place = max(1, min(item.position ?? 1, title.license.holdsTotal))
                title.license.holdsTotal = max(title.license.holdsTotal, place)
                var queue = [DemoHolder](repeating: .anonymous, count: title.license.holdsTotal)
                queue[place - 1] = .patron(username)
                queues[item.titleID] = queue
                item.position = place
            }
            catalog.replace(at: position, with: title)
            seated.append(item)
        }
        return seated
    }
}
