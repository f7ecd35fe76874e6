import CSystemd
import Foundation

/// The player's MPRIS objects on the session bus, through sd-bus: `org.mpris.MediaPlayer2` and
/// `org.mpris.MediaPlayer2.Player` at /org/mpris/MediaPlayer2. Only this file touches sd-bus.
///
/// Not thread-safe, as sd-bus is not: the session's thread creates it, calls `process()` each turn of its loop, and
/// every callback runs inside that call. Calls become `commands`; property reads come from `values`.
final class MprisBus {
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// The one "track": the whole book.
    static let trackID = "/org/mpris/MediaPlayer2/shelf/book"

    /// What the properties say, kept current by the owner.
    var values: MprisValues
    /// The book time in seconds, read when a client asks for Position.
    let position: () -> Double
    /// Calls received since the last `takeCommands()`.
    private var commands: [ListenMachine.RemoteCommand] = []
    private var bus: OpaquePointer?
    private var slots: [OpaquePointer?] = []
    /// The name owned on the bus.
    let name: String

    // The vtables must outlive every object that uses them: built once for the process.
    nonisolated(unsafe) private static let rootVTable = CSystemd_mpris_root_vtable(callMethod, getProperty)
    nonisolated(unsafe) private static let playerVTable = CSystemd_mpris_player_vtable(callMethod, getProperty, setProperty)

    /// Connects to the session bus and owns `org.mpris.MediaPlayer2.shelf` (or, if another shelf plays, an
    /// `.instance<pid>` name, as MPRIS allows). The corresponding C functions are `sd_bus_open_user`,
    /// `sd_bus_add_object_vtable` and `sd_bus_request_name`.
    init(values: MprisValues, position: @escaping () -> Double) throws(MprisBusError) {
        self.values = values
        self.position = position
        var bus: OpaquePointer?
        try Self.check(sd_bus_open_user(&bus), "connect to the session bus")
        // A bus that does not answer must not hold the player up for sd-bus's usual 25 s.
        _ = sd_bus_set_method_call_timeout(bus, 2_000_000)
        let plain = "org.mpris.MediaPlayer2.shelf"
        let instance = "\(plain).instance\(getpid())"
        if sd_bus_request_name(bus, plain, 0) >= 0 {
            name = plain
        } else {
            let result = sd_bus_request_name(bus, instance, 0)
            guard result >= 0 else {
                sd_bus_close_unref(bus)
                throw Self.failure(result, "own \(instance)")
            }
            name = instance
        }
        self.bus = bus
        // From here on, deinit closes the bus if anything fails.
        let context = Unmanaged.passUnretained(self).toOpaque()
        for (interface, vtable) in [(Self.rootInterface, Self.rootVTable), (Self.playerInterface, Self.playerVTable)] {
            var slot: OpaquePointer?
            try Self.check(sd_bus_add_object_vtable(bus, &slot, Self.objectPath, interface, vtable, context), "add \(interface)")
            slots.append(slot)
        }
    }

    deinit { close() }

    /// Leaves the bus. The corresponding C function is `sd_bus_close_unref`.
    func close() {
        for slot in slots { sd_bus_slot_unref(slot) }
        slots = []
        if let bus { sd_bus_close_unref(bus) }
        bus = nil
    }

    /// Handles what came in without waiting; throws when the bus went away. The corresponding C function is
    /// `sd_bus_process`.
    func process() throws(MprisBusError) {
        guard let bus else { return }
        while true {
            let result = sd_bus_process(bus, nil)
            try Self.check(result, "read the session bus")
            if result == 0 { return }
        }
    }

    func takeCommands() -> [ListenMachine.RemoteCommand] {
        defer { commands.removeAll() }
        return commands
    }

    /// PropertiesChanged for `names` of the Player interface. The corresponding C function is
    /// `sd_bus_emit_properties_changed`.
    func emitChanged(_ names: [String]) {
        guard let bus else { return }
        for name in names { _ = CSystemd_emit_changed(bus, Self.objectPath, Self.playerInterface, name) }
    }

    /// The Seeked signal, at the book time now. The corresponding C function is `sd_bus_emit_signal`.
    func emitSeeked() {
        guard let bus else { return }
        _ = CSystemd_emit_seeked(bus, Self.objectPath, Self.microseconds(position()))
    }

    static func microseconds(_ seconds: Double) -> Int64 { seconds.isFinite ? Int64((seconds * 1_000_000).rounded()) : 0 }

    /// The one error path: sd-bus returns a negative errno.
    private static func check(_ result: Int32, _ action: String) throws(MprisBusError) {
        guard result < 0 else { return }
        throw failure(result, action)
    }

    private static func failure(_ result: Int32, _ action: String) -> MprisBusError {
        MprisBusError(action: action, message: String(cString: strerror(-result)))
    }

    // MARK: - Callbacks (C function pointers; `userdata` is the bus object)

    nonisolated(unsafe) private static let callMethod: CSystemd_method_t = { message, userdata, error in
        guard let message, let userdata else { return -EINVAL }
        return Unmanaged<MprisBus>.fromOpaque(userdata).takeUnretainedValue().call(message, error)
    }

    nonisolated(unsafe) private static let getProperty: CSystemd_getter_t = { _, _, _, property, reply, userdata, _ in
        guard let property, let reply, let userdata else { return -EINVAL }
        return Unmanaged<MprisBus>.fromOpaque(userdata).takeUnretainedValue().append(String(cString: property), to: reply)
    }

    nonisolated(unsafe) private static let setProperty: CSystemd_setter_t = { _, _, _, property, value, userdata, _ in
        guard let property, let value, let userdata else { return -EINVAL }
        var number = 0.0
        let result = CSystemd_read_double(value, &number)
        guard result >= 0 else { return result }
        let bus = Unmanaged<MprisBus>.fromOpaque(userdata).takeUnretainedValue()
        switch String(cString: property) {
        case "Rate": bus.commands.append(.setRate(number))
        case "Volume": bus.commands.append(.setVolume(number))
        default: return -EINVAL
        }
        return 1
    }

    private func call(_ message: OpaquePointer, _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
        let member = sd_bus_message_get_member(message).map { String(cString: $0) } ?? ""
        switch member {
        case "Raise": break
        case "Quit": commands.append(.quit)
        case "PlayPause": commands.append(.playPause)
        case "Play": commands.append(.play)
        case "Pause": commands.append(.pause)
        case "Stop": commands.append(.stop)
        case "Next": commands.append(.next)
        case "Previous": commands.append(.previous)
        case "Seek":
            var offset: Int64 = 0
            let result = CSystemd_read_int64(message, &offset)
            guard result >= 0 else { return result }
            commands.append(.seek(by: Double(offset) / 1_000_000))
        case "SetPosition":
            var track: UnsafePointer<CChar>?
            var offset: Int64 = 0
            var result = CSystemd_read_text(message, CChar(UInt8(ascii: "o")), &track)
            if result >= 0 { result = CSystemd_read_int64(message, &offset) }
            guard result >= 0 else { return result }
            // MPRIS: a stale track id is ignored.
            if track.map({ String(cString: $0) }) == Self.trackID { commands.append(.setPosition(Double(offset) / 1_000_000)) }
        case "OpenUri":
            return sd_bus_error_set(error, "org.freedesktop.DBus.Error.NotSupported", "shelf plays only the audiobooks it downloaded")
        default:
            return sd_bus_error_set(error, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(member)")
        }
        return CSystemd_reply_empty(message)
    }

    private func append(_ property: String, to reply: OpaquePointer) -> Int32 {
        switch property {
        case "CanQuit", "CanGoNext", "CanGoPrevious", "CanPlay", "CanPause", "CanSeek", "CanControl":
            return CSystemd_append_bool(reply, 1)
        case "CanRaise", "HasTrackList": return CSystemd_append_bool(reply, 0)
        case "Identity": return CSystemd_append_string(reply, "shelf")
        case "SupportedUriSchemes", "SupportedMimeTypes": return appendStrings([], to: reply)
        case "PlaybackStatus": return CSystemd_append_string(reply, values.status)
        case "Rate": return CSystemd_append_double(reply, values.rate)
        case "MinimumRate": return CSystemd_append_double(reply, values.minimumRate)
        case "MaximumRate": return CSystemd_append_double(reply, values.maximumRate)
        case "Volume": return CSystemd_append_double(reply, values.volume)
        case "Position": return CSystemd_append_int64(reply, Self.microseconds(position()))
        case "Metadata": return appendMetadata(values.metadata, to: reply)
        default: return -EINVAL
        }
    }

    private func appendStrings(_ strings: [String], to message: OpaquePointer) -> Int32 {
        var result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "s")
        for string in strings where result >= 0 { result = CSystemd_append_string(message, string) }
        return result < 0 ? result : sd_bus_message_close_container(message)
    }

    /// An `a{sv}` of the metadata's entries, each in its own type.
    private func appendMetadata(_ metadata: MprisMetadata, to message: OpaquePointer) -> Int32 {
        var result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "a")), "{sv}")
        func entry(_ key: String, _ signature: String, _ value: () -> Int32) {
            guard result >= 0 else { return }
            result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "e")), "sv")
            if result >= 0 { result = CSystemd_append_string(message, key) }
            if result >= 0 { result = sd_bus_message_open_container(message, CChar(UInt8(ascii: "v")), signature) }
            if result >= 0 { result = value() }
            if result >= 0 { result = sd_bus_message_close_container(message) }
            if result >= 0 { result = sd_bus_message_close_container(message) }
        }
        entry("mpris:trackid", "o") { CSystemd_append_path(message, Self.trackID) }
        entry("mpris:length", "x") { CSystemd_append_int64(message, Self.microseconds(metadata.length)) }
        entry("xesam:title", "s") { CSystemd_append_string(message, metadata.title) }
        entry("xesam:album", "s") { CSystemd_append_string(message, metadata.album) }
        if !metadata.artists.isEmpty { entry("xesam:artist", "as") { appendStrings(metadata.artists, to: message) } }
        if let art = metadata.artURL { entry("mpris:artUrl", "s") { CSystemd_append_string(message, art) } }
        return result < 0 ? result : sd_bus_message_close_container(message)
    }
}

/// Why the bus could not be used; the owner logs it at most once and goes on without MPRIS.
struct MprisBusError: Error, CustomStringConvertible {
    var action: String
    var message: String
    var description: String { "cannot \(action): \(message)" }
}
