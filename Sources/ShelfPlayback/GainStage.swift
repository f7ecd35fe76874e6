/// The last step before the device: the volume (0 to 2, so a quiet recording can be boosted), loudness normalisation
/// when asked, and a peak limiter, so that a boost never clips.
///
/// The limiter works on 32-frame blocks (0.7 ms): each block's peak times the gain asks for a gain of at most
/// `ceiling / peak`; the gain at each block's edges is the least the blocks on either side ask for, and it moves
/// linearly between edges, so no sample goes over the ceiling. It recovers at `release` a block (full scale in
/// 200 ms). Normalisation follows the recording's loudness, measured over the last few seconds of sound (silence is
/// not counted), towards −20 dBFS RMS, within ×0.5 to ×4.
final class GainStage {
    /// The highest sample out: 97 % of full scale (−0.26 dBFS).
    static let ceiling: Float = 32_767 * 0.97
    /// The loudness normalisation aims for: −20 dBFS RMS.
    static let target: Float = 32_768 * 0.1
    static let block = 32
    static let release: Float = Float(block) / (0.2 * Float(PCM.sampleRate))

    var normalize = false
    /// The limiter's gain at the end of the last block handed out.
    private var envelope: Float = 1
    /// The running mean square of sound (not silence), for normalisation; nil before the first sound.
    private var meanSquare: Float?

    /// `samples` at `volume`, normalised when asked, limited to the ceiling.
    func apply(_ samples: [Int16], volume: Double) -> [Int16] {
        var gain = Float(volume)
        if normalize { gain *= normalisation(samples) }
        if gain == 1 && envelope == 1 { return samples }
        if gain <= 1 && envelope == 1 {
            // Nothing can go over: a plain scale.
            return samples.map { Int16((Float($0) * gain).rounded()) }
        }
        return limited(samples, gain: gain)
    }

    /// Starts afresh (a seek): the limiter recovered, the loudness kept.
    func reset() { envelope = 1 }

    private func limited(_ samples: [Int16], gain: Float) -> [Int16] {
        let span = Self.block * PCM.channels
        let blocks = (samples.count + span - 1) / span
        guard blocks > 0 else { return samples }
        // What each block allows.
        var allowed = [Float](repeating: 1, count: blocks)
        for block in 0..<blocks {
            var peak: Int32 = 0
            for index in (block * span)..<min(samples.count, (block + 1) * span) {
                peak = max(peak, abs(Int32(samples[index])))
            }
            let loudest = Float(peak) * gain
            allowed[block] = loudest > Self.ceiling ? Self.ceiling / loudest : 1
        }
        // The gain at each block's start, and at the end of the last.
        var edges = [Float](repeating: 1, count: blocks + 1)
        edges[0] = min(envelope, allowed[0])
        for edge in 1...blocks {
            let before = allowed[edge - 1]
            let after = edge < blocks ? allowed[edge] : before
            edges[edge] = min(edges[edge - 1] + Self.release, before, after, 1)
        }
        // A block that asks for less than its start allows pulls earlier edges down: the attack comes before it.
        if blocks > 1 {
            for edge in stride(from: blocks - 1, through: 1, by: -1) where edges[edge] > edges[edge + 1] + Self.release {
                edges[edge] = edges[edge + 1] + Self.release
            }
        }
        envelope = edges[blocks]
        var output = [Int16](repeating: 0, count: samples.count)
        for block in 0..<blocks {
            let first = block * span
            let last = min(samples.count, first + span)
            let frames = Float((last - first) / PCM.channels)
            let from = edges[block]
            let step = (edges[block + 1] - from) / max(1, frames)
            var index = first
            var frame: Float = 0
            while index < last {
                let level = gain * (from + step * frame)
                for channel in 0..<PCM.channels where index + channel < last {
                    let value = Float(samples[index + channel]) * level
                    output[index + channel] = Int16(max(-Self.ceiling, min(Self.ceiling, value)).rounded())
                }
                index += PCM.channels
                frame += 1
            }
        }
        return output
    }

    /// The normalising gain for these samples, after taking their loudness in.
    private func normalisation(_ samples: [Int16]) -> Float {
        let span = 441 * PCM.channels
        var index = 0
        while index < samples.count {
            let end = min(samples.count, index + span)
            var sum: Float = 0
            for sample in samples[index..<end] {
                let value = Float(sample)
                sum += value * value
            }
            let square = sum / Float(end - index)
            // −45 dBFS and under is silence, which would only drag the measure down.
            if square.squareRoot() >= SilenceSkipper.threshold {
                // About 3 s to follow a change of loudness (10 ms blocks).
                meanSquare = meanSquare.map { $0 + (square - $0) * 0.003 } ?? square
            }
            index = end
        }
        guard let meanSquare, meanSquare > 0 else { return 1 }
        return min(4, max(0.5, Self.target / meanSquare.squareRoot()))
    }
}
