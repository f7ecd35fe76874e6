import Foundation
import ShelfCore
import ShelfPlayback

/// What the MPRIS properties say, in plain values.
struct MprisValues: Equatable {
    var status: String
    var rate: Double
    var minimumRate = TempoFilter.speeds.lowerBound
    var maximumRate = TempoFilter.speeds.upperBound
    var volume: Double
    var metadata: MprisMetadata
}

/// The one track, the whole book: the chapter is the title and the book the album, which is what media widgets show
/// best ("Chapter 3 — The Adventures of Sherlock Holmes").
struct MprisMetadata: Equatable {
    var title: String
    var album: String
    var artists: [String]
    /// Seconds.
    var length: Double
    /// A file:// URL of the cover kept beside the parts, if one was downloaded (by `shelf export`).
    var artURL: String?
}

/// MPRIS for one `shelf listen`: owns the bus while the book plays, turns calls into machine commands and
/// publishes the machine's state back. Without a session bus, or once it goes away, it is silent: at most one line
/// under `--verbose`.
final class MprisService {
    private var bus: MprisBus?
    private let log: (@Sendable (String) -> Void)?
    private let artURL: String?
    private var seeked = false

    /// Nil (after one log line) when there is no session bus to join.
    init?(state: ListenMachine.RemoteState, book: Audiobook, log: (@Sendable (String) -> Void)?,
          position: @escaping () -> Double) {
        self.log = log
        artURL = book.parts.first.flatMap { Cover.file(in: $0.file.deletingLastPathComponent()) }?.absoluteString
        do {
            let bus = try MprisBus(values: Self.values(state, book: book, artURL: artURL), position: position)
            log?("MPRIS: \(bus.name) on the session bus")
            self.bus = bus
        } catch {
            log?("MPRIS is off: \(error)")
            return nil
        }
    }

    static func values(_ state: ListenMachine.RemoteState, book: Audiobook, artURL: String?) -> MprisValues {
        let authors = book.summary.authors
        return MprisValues(
            status: state.status, rate: state.rate, volume: state.volume,
            metadata: MprisMetadata(
                title: state.chapterTitle, album: book.summary.title, artists: authors.isEmpty ? [] : [authors],
                length: state.length, artURL: artURL))
    }

    /// Reads what came over the bus, without waiting: the commands for the machine, in order.
    func takeCommands() -> [ListenMachine.RemoteCommand] {
        guard let bus else { return [] }
        do {
            try bus.process()
        } catch {
            // Playing goes on: only the remote control is gone.
            log?("MPRIS is off: the session bus went away (\(error))")
            bus.close()
            self.bus = nil
            return []
        }
        return bus.takeCommands()
    }

    /// Publishes the machine's state; PropertiesChanged for what changed, and Seeked after a seek.
    func publish(_ state: ListenMachine.RemoteState, book: Audiobook) {
        guard let bus else { return }
        let values = Self.values(state, book: book, artURL: artURL)
        let old = bus.values
        bus.values = values
        var changed: [String] = []
        if values.status != old.status { changed.append("PlaybackStatus") }
        if values.rate != old.rate { changed.append("Rate") }
        if values.volume != old.volume { changed.append("Volume") }
        if values.metadata != old.metadata { changed.append("Metadata") }
        if !changed.isEmpty { bus.emitChanged(changed) }
        if seeked {
            seeked = false
            bus.emitSeeked()
        }
    }

    /// The player moved other than by playing on: Seeked goes out with the next `publish`.
    func noteSeek() { seeked = true }
}
