import Foundation
import ShelfPlayback

/// The volume and mute keys (`9`, `0`, `m`, as in mpv) and MPRIS's Volume: the patron's volume, up to 200% (the
/// player limits peaks, so a boost never clips), which the sleep timer's fade scales. The volume is not remembered:
/// each session starts at 100%, as mpv does.
extension ListenMachine {
    /// What reaches the device: the chosen volume, faded by the sleep timer, or nothing while muted.
    var heardVolume: Double { muted ? 0 : volume * fade }

    /// The volume as the screen shows it ("volume 70%", "muted"), or nil at 100% and not muted.
    var volumeLabel: String? {
        if muted { return "muted" }
        return volume != 1 ? "volume \(Self.percent(volume))%" : nil
    }

    static func percent(_ volume: Double) -> Int { Int((volume * 100).rounded()) }

    /// `9` and `0`: 10% down or up, between 0 and 200%, in whole tenths (ten steps down from 100% reach silence).
    mutating func changeVolume(by step: Double) -> [Effect] {
        volume = min(Player.maxVolume, max(0, ((volume + step) * 10).rounded() / 10))
        show("Volume \(Self.percent(volume))%" + (muted ? " (muted)." : "."))
        return [.setVolume(heardVolume)]
    }

    /// Sets the chosen volume to anything from 0 to 2 (MPRIS's Volume, where 1 is the recording's own level),
    /// unmuting as a desktop's slider does.
    mutating func setRemoteVolume(_ wanted: Double) -> [Effect] {
        volume = wanted.isFinite ? min(Player.maxVolume, max(0, wanted)) : volume
        muted = false
        show("Volume \(Self.percent(volume))%.")
        return [.setVolume(heardVolume)]
    }

    mutating func toggleMute() -> [Effect] {
        muted.toggle()
        show(muted ? "Muted." : "Volume \(Self.percent(volume))%.")
        return [.setVolume(heardVolume)]
    }
}
