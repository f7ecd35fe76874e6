import CFFmpeg

/// Changes playback speed without changing pitch (FFmpeg's `atempo`) on `PCM` audio.
public final class TempoFilter {
    /// The speeds the filter accepts.
    public static let speeds: ClosedRange<Double> = 0.5...3.0

    /// The current speed; 1.0 passes samples through untouched.
    public private(set) var speed: Double
    private var graph: FFmpegTempoGraph?

    /// Loads libavfilter (opened on first use, not linked), so the first graph is quick; for a thread of its own.
    public static func preload() { _ = CFFmpeg_avfilter_load() }

    /// Builds the filter graph for `speed`.
    public init(speed: Double = 1.0) throws {
        self.speed = 1.0
        try setSpeed(speed)
    }

    /// Rebuilds the graph for a new speed; samples still inside the old graph are dropped.
    public func setSpeed(_ speed: Double) throws {
        guard Self.speeds.contains(speed) else { throw PlaybackError.speedOutOfRange(speed) }
        graph = speed == 1.0 ? nil : try FFmpegTempoGraph(tempo: speed)
        self.speed = speed
    }

    /// Filters interleaved samples; the result may be shorter or empty while the graph fills.
    public func process(_ samples: [Int16]) throws -> [Int16] {
        guard let graph else { return samples }
        return try graph.push(samples)
    }

    /// Ends the stream and returns what the graph still held; the filter then starts afresh.
    public func finish() throws -> [Int16] {
        guard let graph else { return [] }
        let tail = try graph.finish()
        self.graph = try FFmpegTempoGraph(tempo: speed)
        return tail
    }
}
