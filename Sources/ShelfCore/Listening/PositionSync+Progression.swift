import Foundation

/// The title's progression document beside its annotations: read with the other devices' positions, written with
/// this device's, under the same merge rule.
extension PositionSync {
    var progressionClient: ProgressionClient { ProgressionClient(session: session, libraryName: library.name) }

    /// What putting a position to a progression document came to.
    enum ProgressionPut: Error {
        case done
        /// Another device's newer place waits for the patron's answer (the 409 that told of it was merged).
        case held(String)
        /// Offline, signed out, the server failing: the rest of the queue waits too.
        case stopped(String)
        /// The server will never take it.
        case refused(String)
    }

    /// Another device's place in the title's progression document, resolved to a part of this book; nil when
    /// there is none, it is this device's own, or the title links no progression document.
    func progressionPosition(_ book: Book, of edition: EditionRef) throws -> ListeningPosition? {
        guard let link = book.progressionURL, let url = URL(string: link) else { return nil }
        let progression: RemoteProgression
        switch try progressionClient.get(url) {
        case .none: return nil
        case .progression(let read): progression = read
        case .rejected(let reason):
            warn?("ignored the progression of \(book.title): \(reason); kept the local position")
            return nil
        }
        let ours = try store.deviceID()
        if progression.deviceID == ours { return nil }
        guard let (part, seconds) = place(of: progression, in: book) else {
            warn?("ignored the progression of \(book.title): it names no place in this book "
                  + "(\(progression.href ?? progression.position.map { "position \($0)" } ?? "no part")); kept the local position")
            return nil
        }
        // A server that keeps no device hands this device's own place back: the one it last put.
        if progression.deviceID == nil, let put = try store.lastProgressionPut(of: edition), put.part == part,
            abs(put.seconds - seconds) < 1
        {
            return nil
        }
        return ListeningPosition(
            part: part, seconds: seconds, readingOrderItem: Self.withoutQuery(book.hrefs[part]),
            device: progression.deviceID ?? "progression:" + Self.withoutQuery(link), deviceName: progression.deviceName,
            at: progression.modified)
    }

    /// The part and seconds a progression names: by its href (or its position, from 1), its `t=` fragment or its
    /// progression through the part; else by its progression through the book.
    func place(of progression: RemoteProgression, in book: Book) -> (Int, Double)? {
        var part = progression.href.flatMap { RemoteAnnotation.partIndex(of: AudiobookLocator(readingOrderItem: $0, offsetMilliseconds: 0), in: book.hrefs) }
        if part == nil, let position = progression.position, book.hrefs.indices.contains(position - 1) { part = position - 1 }
        if let part {
            if let seconds = progression.seconds { return (part, seconds) }
            if let fraction = progression.progression, let duration = book.durations[part] { return (part, fraction * duration) }
            return (part, 0)
        }
        guard let total = progression.totalProgression, let duration = book.duration else { return nil }
        var left = total * duration
        for (index, length) in book.durations.enumerated() {
            let length = length ?? 0
            if left < length || index == book.durations.count - 1 { return (index, min(left, length)) }
            left -= length
        }
        return nil
    }

    /// Puts this device's queued position to the title's progression document, `modified` its save time. A 409 (the
    /// document changed since) reads it: another device's newer place there becomes an offer and the position is
    /// held back; otherwise it is put once more, as of now.
    func putProgression(_ row: QueuedAnnotation, edition: EditionRef, book: Book, url: URL) -> ProgressionPut {
        let part = row.item.part
        let bookSeconds = book.bookSeconds(part: part, seconds: row.item.seconds)
        let total = bookSeconds.flatMap { seconds in book.duration.flatMap { $0 > 0 ? seconds / $0 : nil } }
        let partProgression = book.durations.indices.contains(part) ? book.durations[part].flatMap { $0 > 0 ? row.item.seconds / $0 : nil } : nil
        func put(_ modified: Date) -> Result<Int, ProgressionPut> {
            let document = RemoteProgression.document(
                modified: modified, device: row.item.device, deviceName: Store.thisComputer,
                href: book.hrefs.indices.contains(part) ? Self.withoutQuery(book.hrefs[part]) : row.item.readingOrderItem,
                type: nil, title: book.titles.indices.contains(part) ? book.titles[part] : nil, part: part,
                seconds: row.item.seconds, partProgression: partProgression, totalProgression: total)
            do {
                return .success(try progressionClient.put(url, document: document))
            } catch {
                return .failure(.stopped((error as? ShelfFailure)?.description ?? "\(error)"))
            }
        }
        var status: Int
        switch put(row.item.at) {
        case .success(let answered): status = answered
        case .failure(let outcome): return outcome
        }
        if status == 409 {
            do {
                _ = try remotePosition(of: edition, book: book)
                if let offer = try store.openOffer(of: edition) { return .held(Self.heldBack(by: offer, id: row.shortID)) }
            } catch {
                return .stopped((error as? ShelfFailure)?.description ?? "\(error)")
            }
            switch put(Date()) {
            case .success(let answered): status = answered
            case .failure(let outcome): return outcome
            }
        }
        switch status {
        case 200..<300:
            try? store.recordProgressionPut(part: part, seconds: row.item.seconds, of: edition)
            return .done
        case 401: return .stopped(CirculationError.unauthorised(library.name, signedIn: session.isSignedIn).description)
        case 408, 429, 500...:
            return .stopped(NetworkError.httpStatus(url: Redaction.url(url.absoluteString), status: status).description)
        default: return .refused("\(status) \(HTTPStatus.reason(status))")
        }
    }
}
