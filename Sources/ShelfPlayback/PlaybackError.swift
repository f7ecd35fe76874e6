/// Why decoding, filtering or playing audio failed: one lower-case line saying what went wrong.
public enum PlaybackError: Error, CustomStringConvertible, Equatable, Sendable {
    /// An FFmpeg call failed; carries what shelf was doing and FFmpeg's own message.
    case ffmpeg(action: String, message: String)
    /// An SDL call failed; carries what shelf was doing and SDL's own message.
    case sdl(action: String, message: String)
    /// The file has no audio stream shelf can decode.
    case noAudioStream(path: String)
    /// SDL could not open any audio device.
    case noAudioDevice(reason: String)
    /// FFmpeg's or SDL2's shared libraries could not be opened (they are opened when first needed, not linked).
    case libraryMissing(library: String, reason: String)
    /// The playback speed is outside what the tempo filter accepts.
    case speedOutOfRange(Double)
    /// A position names a part the player was not given.
    case noSuchPart(index: Int, count: Int)
    /// A file's audio ends well before the length its own header or index states: it was cut short.
    case cutShort(path: String, endsAt: Double, declared: Double)

    public var description: String {
        switch self {
        case .ffmpeg(let action, let message): "cannot \(action): \(message)"
        case .sdl(let action, let message): "cannot \(action): \(message)"
        case .noAudioStream(let path): "no playable audio stream in \(path); the file may be damaged"
        case .noAudioDevice(let reason):
            "no audio device: set SDL_AUDIODRIVER (e.g. pulseaudio, alsa, or disk for testing) (\(reason))"
        case .libraryMissing(let library, let reason):
            "cannot load \(library): \(reason); install Debian's FFmpeg and SDL2 libraries (Scripts/setup does)"
        case .speedOutOfRange(let speed): "speed \(speed) is out of range; use 0.5 to 4.0"
        case .noSuchPart(let index, let count): "part \(index + 1) does not exist; the title has \(count) parts"
        case .cutShort(let path, let endsAt, let declared):
            "\(path) is cut short: its audio ends at \(Self.seconds(endsAt)) of the \(Self.seconds(declared)) it declares"
        }
    }

    private static func seconds(_ value: Double) -> String { "\((value * 10).rounded() / 10) s" }
}
