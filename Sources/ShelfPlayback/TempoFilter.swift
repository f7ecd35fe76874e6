/// Changes playback speed without changing pitch (shelf's own WSOLA, `TimeStretch`) on `PCM` audio.
public final class TempoFilter {
    /// The speeds the filter accepts.
    public static let speeds: ClosedRange<Double> = 0.5...4.0

    /// The current speed; a filter made for 1.0 passes samples through untouched.
    public private(set) var speed: Double
    private var stretch: TimeStretch?

    /// A filter for `speed`.
    public init(speed: Double = 1.0) throws {
        self.speed = 1.0
        try setSpeed(speed)
    }

    /// Changes the speed from the next samples on, without a gap or a click.
    /// Back at 1.0 the stretcher keeps going (in step with the input) until `finish()`.
    public func setSpeed(_ speed: Double) throws {
        guard Self.speeds.contains(speed) else { throw PlaybackError.speedOutOfRange(speed) }
        if let stretch {
            stretch.speed = speed
        } else if speed != 1.0 {
            stretch = TimeStretch(speed: speed)
        }
        self.speed = speed
    }

    /// Filters interleaved samples; the result may be shorter or empty while the stretcher fills (about 50 ms).
    public func process(_ samples: [Int16]) -> [Int16] {
        stretch?.process(samples) ?? samples
    }

    /// Ends the stream and returns what the stretcher still held; the filter then starts afresh.
    public func finish() -> [Int16] {
        let tail = stretch?.finish() ?? []
        if speed == 1.0 { stretch = nil }
        return tail
    }
}
