import Foundation

/// Changes the speed of `PCM` audio without changing its pitch, by WSOLA (waveform-similarity overlap-add).
///
/// The output is made of Hann windows of `window` frames laid `hop` frames apart (half a window, so they sum to
/// one). Each window is taken from the input about `hop × speed` frames after the previous one, moved by up to
/// `tolerance` frames to where it best continues what the previous window would have played next (normalised
/// cross-correlation, first on a decimated mono signal, then sample by sample around the best), so the overlaps add
/// up in phase and nothing clicks. mpv's scaletempo2 (from Chromium) works the same way.
final class TimeStretch {
    /// Frames per window: 23 ms at 44.1 kHz.
    static let window = 1024
    /// Frames between windows in the output.
    static let hop = window / 2
    /// How far, in frames, a window may move from its place in the input to match: about 14.5 ms either way.
    static let tolerance = 640
    /// The decimation of the coarse search.
    static let decimation = 8

    /// Input frames per output frame.
    var speed: Double

    /// Input not yet used, interleaved stereo, from the absolute frame `start`.
    private var input: [Float] = []
    /// The same input as mono, for the similarity search.
    private var mono: [Float] = []
    /// The absolute input frame of `input[0]`.
    private var start = 0
    /// Where the next window would sit in the input without the search (absolute frames, fractional).
    private var position = 0.0
    /// Where the previous window was taken from; nil before the first.
    private var previous: Int?
    /// The output frames handed out so far.
    private var emitted = 0
    /// The overlap-add accumulator: one window of interleaved stereo, its first `hop` frames due next.
    private var pending = [Float](repeating: 0, count: window * PCM.channels)

    private static let hann: [Float] = (0..<window).map {
        Float(0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(window)))
    }

    init(speed: Double) {
        self.speed = speed
    }

    /// Takes interleaved samples and returns what is ready of the stretched output (a whole number of hops).
    func process(_ samples: [Int16]) -> [Int16] {
        append(samples)
        var output: [Int16] = []
        while start + input.count / PCM.channels >= neededEnd() { addWindow(into: &output) }
        trim()
        return output
    }

    /// Returns the rest of the output, so that it lasts the input's length divided by the speed; then starts afresh.
    func finish() -> [Int16] {
        let frames = input.count / PCM.channels + start
        let target = emitted + Int(((Double(frames) - position) / speed).rounded())
        var output: [Int16] = []
        while emitted < target {
            // Past the end of the input the windows read silence.
            let missing = neededEnd() - (input.count / PCM.channels + start)
            if missing > 0 {
                input += [Float](repeating: 0, count: missing * PCM.channels)
                mono += [Float](repeating: 0, count: missing)
            }
            addWindow(into: &output)
        }
        // Past the target by part of a hop; or, after a first window at a high speed on a very short input, by
        // more than this call made: that much was already handed out.
        output.removeLast(min(output.count, max(0, emitted - target) * PCM.channels))
        reset()
        return output
    }

    private func reset() {
        input = []
        mono = []
        start = 0
        position = 0
        previous = nil
        emitted = 0
        pending = [Float](repeating: 0, count: Self.window * PCM.channels)
    }

    private func append(_ samples: [Int16]) {
        let frames = samples.count / PCM.channels
        // Converted into arrays of their own, then appended at once: appending sample by sample to the properties
        // costs an exclusivity check each.
        var stereo = [Float](repeating: 0, count: frames * PCM.channels)
        var mixed = [Float](repeating: 0, count: frames)
        samples.withUnsafeBufferPointer { source in
            stereo.withUnsafeMutableBufferPointer { stereo in
                mixed.withUnsafeMutableBufferPointer { mixed in
                    for frame in 0..<frames {
                        let left = Float(source[2 * frame]) / 32768
                        let right = Float(source[2 * frame + 1]) / 32768
                        stereo[2 * frame] = left
                        stereo[2 * frame + 1] = right
                        mixed[frame] = left + right
                    }
                }
            }
        }
        input += stereo
        mono += mixed
    }

    /// The absolute input frame the next window needs the input to reach.
    private func neededEnd() -> Int {
        guard previous != nil else { return Int(position.rounded()) + Self.window }
        return Int(position.rounded()) + Self.tolerance + Self.window
    }

    /// Drops input no later window can read.
    private func trim() {
        let center = Int(position.rounded())
        var keep = center - Self.tolerance
        if let previous { keep = min(keep, previous + Self.hop) }
        let drop = keep - start
        guard drop > 8192 else { return }
        input.removeFirst(drop * PCM.channels)
        mono.removeFirst(drop)
        start += drop
    }

    /// Overlap-adds the next window and hands out the `hop` frames it completes.
    private func addWindow(into output: inout [Int16]) {
        let center = Int(position.rounded())
        let from: Int
        if let previous {
            from = bestStart(near: center, continuing: previous + Self.hop)
        } else {
            from = max(center, start)
        }
        let first = previous == nil
        let offset = (from - start) * PCM.channels
        let values = Self.hop * PCM.channels
        let done = [Int16](unsafeUninitializedCapacity: values) { done, count in
            input.withUnsafeBufferPointer { source in
                pending.withUnsafeMutableBufferPointer { sum in
                    Self.hann.withUnsafeBufferPointer { hann in
                        for frame in 0..<Self.window {
                            // The first window starts at full strength: there is nothing before it to fade from.
                            let weight = first && frame < Self.hop ? 1 : hann[frame]
                            sum[2 * frame] += weight * source[offset + 2 * frame]
                            sum[2 * frame + 1] += weight * source[offset + 2 * frame + 1]
                        }
                    }
                    for index in 0..<values {
                        let value = max(-32768, min(32767, sum[index] * 32768))
                        done[index] = Int16(value < 0 ? value - 0.5 : value + 0.5)
                        // The window's second half moves up to be completed by the next one.
                        sum[index] = sum[index + values]
                        sum[index + values] = 0
                    }
                }
            }
            count = values
        }
        output += done
        previous = from
        position += Double(Self.hop) * speed
        emitted += Self.hop
    }

    /// The input frame within `tolerance` of `center` whose next `hop` frames are most like those from `natural`.
    private func bestStart(near center: Int, continuing natural: Int) -> Int {
        let lowest = max(center - Self.tolerance, start)
        let highest = max(lowest, center + Self.tolerance)
        return mono.withUnsafeBufferPointer { mono in
            let target = UnsafeBufferPointer(rebasing: mono[(natural - start)..<(natural - start + Self.hop)])
            // Coarse: every `decimation`th place, on sums of `decimation` samples.
            let step = Self.decimation
            let span = highest - lowest
            let places = span / step + 1
            let coarseTarget = Self.decimated(target, step: step)
            let region = UnsafeBufferPointer(rebasing: mono[(lowest - start)..<(lowest - start + places * step + Self.hop)])
            let coarseRegion = Self.decimated(region, step: step)
            let coarse = coarseTarget.withUnsafeBufferPointer { target in
                coarseRegion.withUnsafeBufferPointer { region in
                    Self.mostSimilar(target, in: region, places: places)
                }
            }
            // Fine: every place around the best coarse one.
            let low = max(lowest, lowest + coarse * step - step + 1)
            let high = min(highest, lowest + coarse * step + step - 1)
            let fineRegion = UnsafeBufferPointer(rebasing: mono[(low - start)..<(high - start + Self.hop)])
            return low + Self.mostSimilar(target, in: fineRegion, places: high - low + 1)
        }
    }

    /// Sums of each `step` samples.
    private static func decimated(_ signal: UnsafeBufferPointer<Float>, step: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: signal.count / step) { buffer, count in
            for index in 0..<(signal.count / step) {
                var sum: Float = 0
                for offset in 0..<step { sum += signal[index * step + offset] }
                buffer[index] = sum
            }
            count = signal.count / step
        }
    }

    /// The place, of the first `places` in `region`, where `target` correlates best (normalised by the energy there).
    private static func mostSimilar(
        _ target: UnsafeBufferPointer<Float>, in region: UnsafeBufferPointer<Float>, places: Int
    ) -> Int {
        let length = target.count
        var energy: Float = 0
        for index in 0..<length { energy += region[index] * region[index] }
        var best = 0
        var bestScore = -Float.infinity
        for place in 0..<places {
            if place > 0 {
                let leaving = region[place - 1]
                let entering = region[place + length - 1]
                energy += entering * entering - leaving * leaving
            }
            let correlation = dot(target.baseAddress!, region.baseAddress! + place, length)
            // Silence scores zero, not a division by zero; rounding can leave the running energy a hair below zero.
            let score = correlation / (max(energy, 0) + 1e-6).squareRoot()
            if score > bestScore {
                best = place
                bestScore = score
            }
        }
        return best
    }

    /// The sum of the products of `count` floats, eight at a time (a sum one by one is not vectorised: it would
    /// change the rounding).
    @inline(__always)
    private static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var sums = SIMD8<Float>()
        var index = 0
        while index + 8 <= count {
            let x = UnsafeRawPointer(a + index).loadUnaligned(as: SIMD8<Float>.self)
            let y = UnsafeRawPointer(b + index).loadUnaligned(as: SIMD8<Float>.self)
            sums += x * y  // not addProduct: without FMA in the baseline x86-64 it calls fmaf per lane
            index += 8
        }
        var total = sums.sum()
        while index < count {
            total += a[index] * b[index]
            index += 1
        }
        return total
    }
}
