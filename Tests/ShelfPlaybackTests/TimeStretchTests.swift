import Foundation
import ShelfPlayback
import Testing

/// The tempo filter's own WSOLA on signals made here: length, pitch, clicks, partials, silence, speed changes.
@Suite(.timeLimit(.minutes(5))) struct TimeStretchTests {
    static let stretched: [Double] = [0.5, 0.75, 1.05, 1.25, 1.5, 2, 3, 3.5, 4]

    @Test(arguments: stretched)
    func lastsTheInputOverTheSpeed(speed: Double) async throws {
        let input = Signal.tone(440, seconds: 3)
        let output = try await Signal.filtered(input, speed: speed)
        let expected = Double(input.count / 2) / speed
        let frames = Double(output.count / 2)
        #expect(abs(frames / expected - 1) < 0.01, "\(speed)×: \(frames) frames for \(expected)")
    }

    @Test(arguments: stretched)
    func keepsThePitch(speed: Double) async throws {
        let output = try await Signal.filtered(Signal.tone(440, seconds: 3), speed: speed)
        let frequency = TestAudio.frequency(output)
        #expect(abs(frequency - 440) < 4, "\(speed)×: \(frequency) Hz")
    }

    /// A window joined out of phase shows as a jump far bigger than a sine's steepest step, or as a dip in level.
    @Test(arguments: stretched)
    func joinsWithoutClicksOrDips(speed: Double) async throws {
        let input = Signal.tone(440, seconds: 3)
        let output = try await Signal.filtered(input, speed: speed)
        let inputStep = Signal.largestStep(input[...])
        // The very end is read past the input, where the last window fades into silence.
        let body = output[0..<(output.count - 2 * 44_100 / 10)]
        #expect(Double(Signal.largestStep(body)) < Double(inputStep) * 1.1, "\(speed)×: step \(Signal.largestStep(body)) for \(inputStep)")
        let (quietest, loudest) = Signal.levels(body, block: 441)
        #expect(quietest > 0.95 * Signal.amplitude && loudest < 1.02 * Signal.amplitude, "\(speed)×: level \(quietest)…\(loudest)")
    }

    @Test(arguments: stretched)
    func keepsBothPartialsOfATwoToneSignal(speed: Double) async throws {
        let input = Signal.mix(Signal.tone(300, seconds: 3, amplitude: 8_000), Signal.tone(1_200, seconds: 3, amplitude: 8_000))
        let output = try await Signal.filtered(input, speed: speed)
        let middle = output[(output.count / 4 & ~1)..<(output.count * 3 / 4 & ~1)]
        let low = Signal.goertzel(middle, frequency: 300)
        let high = Signal.goertzel(middle, frequency: 1_200)
        let between = Signal.goertzel(middle, frequency: 750)
        let original = Signal.goertzel(input[...], frequency: 300)
        #expect(low > 0.8 * original && low < 1.2 * original, "\(speed)×: 300 Hz at \(low / original) of the input's")
        #expect(high > 0.8 * original && high < 1.2 * original, "\(speed)×: 1200 Hz at \(high / original) of the input's")
        #expect(between < 0.02 * original, "\(speed)×: 750 Hz at \(between / original) of the input's")
    }

    @Test func finishReturnsTheTailAndStartsAfresh() throws {
        let input = Signal.tone(440, seconds: 1)
        let filter = try TempoFilter(speed: 2)
        let streamed = Signal.chunks(input).flatMap { filter.process($0) }
        let tail = filter.finish()
        #expect(!tail.isEmpty)
        #expect(abs((streamed.count + tail.count) / 2 - input.count / 4) <= 1)
        // Nothing of the first stream is left: the same input again gives the same output again.
        let again = Signal.chunks(input).flatMap { filter.process($0) } + filter.finish()
        #expect(again == streamed + tail)
        #expect(filter.finish().isEmpty)
    }

    @Test(arguments: [1.0] + stretched)
    func silenceStaysSilence(speed: Double) async throws {
        let output = try await Signal.filtered([Int16](repeating: 0, count: 2 * 44_100), speed: speed)
        #expect(output.allSatisfy { $0 == 0 })
        #expect(abs(Double(output.count / 2) - 44_100 / speed) <= 1)
    }

    /// Inputs shorter than a window, or than what the first window moves on by at 3×, end without a crash, and
    /// last about what they should (give or take the hop the first window hands out).
    @Test(arguments: stretched)
    func shortInputsEndCleanly(speed: Double) throws {
        for frames in [0, 1, 100, 1_023, 1_024, 1_100, 1_600, 3_000] {
            let filter = try TempoFilter(speed: speed)
            let input = Array(Signal.tone(440, seconds: 1).prefix(2 * frames))
            let output = Signal.chunks(input).flatMap { filter.process($0) } + filter.finish()
            #expect(abs(Double(output.count / 2) - Double(frames) / speed) <= 512, "\(speed)×, \(frames) frames: \(output.count / 2)")
            #expect(filter.finish().isEmpty)
        }
    }

    @Test func oneTimesPassesTheSamplesThroughUntouched() throws {
        let input = Signal.mix(Signal.tone(300, seconds: 1, amplitude: 8_000), Signal.tone(1_200, seconds: 1, amplitude: 8_000))
        let filter = try TempoFilter(speed: 1)
        #expect(Signal.chunks(input).flatMap { filter.process($0) } == input)
        #expect(filter.finish().isEmpty)
    }

    @Test func changesSpeedMidStreamWithoutAGapOrAClick() throws {
        let filter = try TempoFilter(speed: 1)
        var output: [Int16] = []
        var input: [Int16] = []
        for (speed, seconds) in [(1.0, 1.0), (2.0, 2.0), (0.5, 1.0), (1.0, 1.0), (3.0, 1.5)] {
            try filter.setSpeed(speed)
            // Each stretch continues the same tone where the last left off.
            let piece = Signal.tone(440, seconds: seconds, from: input.count / 2)
            input += piece
            for chunk in Signal.chunks(piece) { output += filter.process(chunk) }
        }
        output += filter.finish()
        let expected = 44_100 * (1.0 + 2.0 / 2 + 1.0 / 0.5 + 1.0 + 1.5 / 3)
        #expect(abs(Double(output.count / 2) / expected - 1) < 0.01, "\(output.count / 2) frames for \(expected)")
        #expect(abs(TestAudio.frequency(output) - 440) < 4, "\(TestAudio.frequency(output)) Hz")
        let body = output[0..<(output.count - 2 * 44_100 / 10)]
        #expect(Double(Signal.largestStep(body)) < Double(Signal.largestStep(input[...])) * 1.1)
        #expect(Signal.levels(body, block: 441).quietest > 0.95 * Signal.amplitude)
        #expect(throws: PlaybackError.speedOutOfRange(0.25)) { try filter.setSpeed(0.25) }
    }
}

/// Interleaved stereo test signals at the player's rate, and the measures the tests take of them.
enum Signal {
    static let amplitude = 16_000.0

    /// A sine of `frequency` Hz on both channels, its phase as if it had started `from` frames earlier.
    static func tone(_ frequency: Double, seconds: Double, amplitude: Double = amplitude, from: Int = 0) -> [Int16] {
        let frames = Int(seconds * 44_100)
        var samples = [Int16](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            let value = Int16((amplitude * sin(2 * Double.pi * frequency * Double(frame + from) / 44_100)).rounded())
            samples[2 * frame] = value
            samples[2 * frame + 1] = value
        }
        return samples
    }

    static func mix(_ a: [Int16], _ b: [Int16]) -> [Int16] { zip(a, b).map { $0 &+ $1 } }

    /// The samples in pieces of 1152 frames (an MP3 frame), as the decoder hands them over.
    static func chunks(_ samples: [Int16]) -> [[Int16]] {
        stride(from: 0, to: samples.count, by: 2304).map { Array(samples[$0..<min($0 + 2304, samples.count)]) }
    }

    /// Runs `samples` through a fresh filter at `speed`, chunk by chunk, then finishes it, on a thread of its own: a
    /// debug build takes a while, which the test run's two shared threads are needed for by other suites' servers.
    static func filtered(_ samples: [Int16], speed: Double) async throws -> [Int16] {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let filter = try TempoFilter(speed: speed)
                    return chunks(samples).flatMap { filter.process($0) } + filter.finish()
                })
            }
        }
    }

    /// The largest difference between neighbouring samples of the left channel.
    static func largestStep(_ samples: ArraySlice<Int16>) -> Int {
        var largest = 0
        var index = samples.startIndex + 2
        while index < samples.endIndex {
            largest = max(largest, abs(Int(samples[index]) - Int(samples[index - 2])))
            index += 2
        }
        return largest
    }

    /// The smallest and largest peak of the left channel over blocks of `block` frames.
    static func levels(_ samples: ArraySlice<Int16>, block: Int) -> (quietest: Double, loudest: Double) {
        var quietest = Double.infinity
        var loudest = 0.0
        var start = samples.startIndex
        while start + 2 * block <= samples.endIndex {
            var peak = 0
            for index in stride(from: start, to: start + 2 * block, by: 2) { peak = max(peak, abs(Int(samples[index]))) }
            quietest = min(quietest, Double(peak))
            loudest = max(loudest, Double(peak))
            start += 2 * block
        }
        return (quietest, loudest)
    }

    /// The amplitude of `frequency` Hz in the left channel (Goertzel).
    static func goertzel(_ samples: ArraySlice<Int16>, frequency: Double) -> Double {
        let coefficient = 2 * cos(2 * Double.pi * frequency / 44_100)
        var (previous, beforeThat) = (0.0, 0.0)
        var count = 0
        var index = samples.startIndex
        while index < samples.endIndex {
            let value = Double(samples[index]) + coefficient * previous - beforeThat
            beforeThat = previous
            previous = value
            count += 1
            index += 2
        }
        let power = previous * previous + beforeThat * beforeThat - coefficient * previous * beforeThat
        return 2 * power.squareRoot() / Double(count)
    }
}
