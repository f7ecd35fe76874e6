/// Shortens long silences in `PCM` audio as it streams by: a pause longer than `longest` is cut to its first `kept`,
/// and the rest is dropped. Pauses shorter than `longest` (between words, between sentences) are left as they are.
///
/// It works on 10 ms blocks: a block is silent when its RMS level is below `threshold` (−45 dBFS, under the room
/// tone of speech recordings' pauses and far under speech). A silent block is held until the pause either ends (held
/// blocks all go out) or outgrows `longest` (the first `kept` go out). What comes out is in runs, each contiguous in
/// the source and stamped with its source time, so positions stay in the book's time.
public final class SilenceSkipper {
    /// A piece of output, contiguous in the source.
    public struct Run: Equatable {
        /// Source time of the first frame, in seconds.
        public var time: Double
        public var samples: [Int16]
    }

    /// Frames per block: 10 ms.
    public static let block = PCM.sampleRate / 100
    /// RMS level under which a block is silent: −45 dBFS of full scale.
    public static let threshold: Float = 32_768 * 0.005_623
    /// Pauses longer than this (in blocks) are shortened: 0.6 s.
    public static let longest = 60
    /// What is left of a pause that is shortened (in blocks): 0.3 s.
    public static let kept = 30

    /// Source seconds dropped so far.
    public private(set) var removed = 0.0

    /// Samples not yet making a whole block, and the source time of their first frame.
    private var partial: [Int16] = []
    private var partialTime = 0.0
    /// Silent blocks held while the pause they belong to may still end (runs, as blocks before a gap may be there).
    private var held: [Run] = []
    private var heldBlocks = 0
    /// Past `longest` in this pause: its silent blocks are dropped until sound comes.
    private var dropping = false

    public init() {}

    /// Takes a chunk of interleaved samples whose first frame is at `time`; returns the runs ready to play.
    public func process(_ samples: [Int16], time: Double) -> [Run] {
        let size = Self.block * PCM.channels
        if partial.isEmpty {
            partialTime = time
        } else if abs(time - (partialTime + Double(partial.count / PCM.channels) / Double(PCM.sampleRate))) > 0.005 {
            // The source jumped (a damaged frame skipped): the partial block goes out as it is.
            var runs: [Run] = []
            emit(Run(time: partialTime, samples: partial), into: &runs)
            partial = []
            partialTime = time
            return runs + process(samples, time: time)
        }
        var runs: [Run] = []
        var index = 0
        if !partial.isEmpty {
            let needed = size - partial.count
            guard samples.count >= needed else {
                partial += samples
                return []
            }
            partial += samples[0..<needed]
            index = needed
            take(Run(time: partialTime, samples: partial), into: &runs)
            partial = []
        }
        var blockTime = time + Double(index / PCM.channels) / Double(PCM.sampleRate)
        while index + size <= samples.count {
            take(Run(time: blockTime, samples: Array(samples[index..<(index + size)])), into: &runs)
            index += size
            blockTime += 0.01
        }
        partial = Array(samples[index...])
        partialTime = blockTime
        return runs
    }

    /// Returns what is still held (a pause at the end shorter than `longest`, and the last part-block), and starts
    /// afresh for the next part.
    public func finish() -> [Run] {
        var runs: [Run] = []
        for run in held { emit(run, into: &runs) }
        if !partial.isEmpty { emit(Run(time: partialTime, samples: partial), into: &runs) }
        held = []
        heldBlocks = 0
        dropping = false
        partial = []
        return runs
    }

    private func take(_ block: Run, into runs: inout [Run]) {
        guard Self.isSilent(block.samples) else {
            for run in held { emit(run, into: &runs) }
            held = []
            heldBlocks = 0
            dropping = false
            emit(block, into: &runs)
            return
        }
        if dropping {
            removed += 0.01
            return
        }
        held.append(block)
        heldBlocks += 1
        guard heldBlocks > Self.longest else { return }
        for run in held.prefix(Self.kept) { emit(run, into: &runs) }
        removed += Double(heldBlocks - Self.kept) * 0.01
        held = []
        heldBlocks = 0
        dropping = true
    }

    /// Appends `run`, joined to the last run when it follows it in the source.
    private func emit(_ run: Run, into runs: inout [Run]) {
        if let last = runs.last,
            abs(last.time + Double(last.samples.count / PCM.channels) / Double(PCM.sampleRate) - run.time) < 0.000_5
        {
            runs[runs.count - 1].samples += run.samples
        } else {
            runs.append(run)
        }
    }

    static func isSilent(_ samples: [Int16]) -> Bool {
        var sum: Float = 0
        for sample in samples {
            let value = Float(sample)
            sum += value * value
        }
        return (sum / Float(max(1, samples.count))).squareRoot() < threshold
    }
}
