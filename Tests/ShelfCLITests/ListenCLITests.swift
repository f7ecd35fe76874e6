import DemoLibrary
import Foundation
import ShelfSpawn
import ShelfCore
import ShelfPlayback
import Testing

/// `shelf listen` as a patron runs it: the real binary, the demo library on loopback, FFmpeg decoding the parts
/// the demo made, and SDL's disk driver writing what would be heard to a file, in real time.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ListenCLITests {
    static let sherlock = "urn:uuid:7d3c0002-5a1e-4c6b-9f0e-d0c5e1f00002"
    static let bytesPerSecond = 44_100 * 4

    /// A signed-in patron with Sherlock (four parts, 12 s in all, or `partSeconds` each) downloaded.
    private func ready(partSeconds: Int? = nil, download: Bool = true) async throws -> CLIFixture {
        let fixture = try await CLIFixture(configuration: DemoConfiguration(pageSize: 5, partCount: 4, partSeconds: partSeconds))
        try await fixture.signIn()
        if download {
            let result = try await fixture.shelf.run(["download", "7d3c0002"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        return fixture
    }

    private func disk(_ fixture: CLIFixture, _ name: String = "out.raw") -> (URL, [String: String]) {
        let file = fixture.shelf.home.appendingPathComponent(name)
        return (file, ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": file.path])
    }

    private func listening(_ fixture: CLIFixture) throws -> ListeningState {
        let store = try Store(home: Home(directory: fixture.shelf.home))
        let library = try store.library(named: "demo")
        return try store.listeningState(of: try store.resolveEdition("7d3c0002", in: library))
    }

    private func book(_ fixture: CLIFixture) throws -> Audiobook {
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        return try store.audiobook(try store.resolveEdition("7d3c0002", in: try store.library(named: "demo")), home: home)
    }

    /// Seconds into the book of a saved position, by the lengths of the files.
    private func bookSeconds(_ position: ListeningPosition?, in book: Audiobook) throws -> Double {
        guard let position else { return -1 }
        var start = 0.0
        for part in book.parts.prefix(position.part) { start += try AudioDecoder(path: part.file.path).duration ?? 0 }
        return start + position.seconds
    }

    /// What a started `shelf` printed, once it has ended.
    private func output(of process: ChildProcess, _ out: Pipe) async throws -> String {
        try await offloaded {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }

    private func samples(_ file: URL) throws -> [Int16] {
        try Data(contentsOf: file).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// The samples between the first and last audible one (the disk driver writes silence while paused).
    private func audible(_ samples: [Int16]) -> ArraySlice<Int16> {
        guard let first = samples.firstIndex(where: { abs(Int($0)) > 200 }),
            let last = samples.lastIndex(where: { abs(Int($0)) > 200 })
        else { return [] }
        return samples[(first & ~1)...(last | 1)]
    }

    /// Dominant frequency of the left channel, by zero crossings, counted within its sounding stretches only: a
    /// stretch of silence (an underrun, when a loaded test machine starves the player for a moment, or a pause in
    /// the tone) has no crossings and would pull the figure down without saying anything about the pitch.
    private func frequency(_ samples: ArraySlice<Int16>) -> Double {
        let left = stride(from: samples.startIndex, to: samples.endIndex, by: 2).map { samples[$0] }
        let silentFrames = 220  // 5 ms of near-zero samples ends a stretch
        var crossings = 0
        var frames = 0
        var stretchStart = 0
        var quiet = 0
        func count(_ range: Range<Int>) {
            guard range.count >= 882 else { return }  // at least 20 ms: an underrun-torn stretch still counts
            for index in range.dropFirst() where (left[index - 1] < 0) != (left[index] < 0) { crossings += 1 }
            frames += range.count
        }
        for (index, sample) in left.enumerated() {
            if abs(Int(sample)) < 64 {
                quiet += 1
                if quiet == silentFrames { count(stretchStart..<(index - silentFrames + 1)) }
            } else {
                if quiet >= silentFrames { stretchStart = index }
                quiet = 0
            }
        }
        if quiet < silentFrames { count(stretchStart..<left.count) }
        return frames == 0 ? 0 : Double(crossings) / 2 / (Double(frames) / 44_100)
    }

    @Test func withoutAScreenItPrintsAChapterLineAndFinishesWhereTheBookEnds() async throws {
        let fixture = try await ready()
        let (file, environment) = disk(fixture)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "0:06"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Playing The Adventures of Sherlock Holmes at 0:06 of 0:12, 1.0× speed.", "\(lines)")
        #expect(lines.contains { $0.hasPrefix("Chapter 4 (4 of 4) at 0:09") }, "\(lines)")
        #expect(lines.last == "Finished The Adventures of Sherlock Holmes.")
        let state = try listening(fixture)
        #expect(state.consumption == .finished)
        #expect(state.position?.part == 3)
        // What reached the device is the book's last 6 seconds.
        let heard = Double(audible(try samples(file)).count * 2) / Double(Self.bytesPerSecond)
        #expect(abs(heard - 6.2) < 0.35, "heard \(heard) s")
        #expect(try await fixture.shelf.run(["list"]).stdout.contains("finished"))
        await fixture.finish()
    }

    @Test func speedTwoHalvesTheTimeAndKeepsThePitch() async throws {
        let fixture = try await ready()
        let (file, environment) = disk(fixture)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--speed", "2"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2.0× speed"))
        let audio = audible(try samples(file))
        let book = try book(fixture)
        // The sound heard, against the book's: the device takes its samples at its own fixed rate, so half the book's
        // sounding samples is half its time as heard. Only sounding samples are counted on both sides: an underrun
        // on a loaded machine writes silence between the first and last sound (1.2 s once, with a package install
        // beside a full run on two cores), which says nothing of the speed. 1.5× would be 1.3 s longer still.
        func sounding(_ samples: some Collection<Int16>) -> Double {
            Double(samples.lazy.filter { abs(Int($0)) > 200 }.count * 2) / Double(Self.bytesPerSecond)
        }
        let heard = sounding(audio)
        let total = try book.parts.reduce(0.0) { $0 + sounding(try AudioDecoder(path: $1.file.path).decodeAll().samples) }
        #expect(abs(heard - total / 2) < 0.4, "heard \(heard) s of a book sounding for \(total) s")
        // The first part's tone, at twice the speed, is still the same note.
        let source = try AudioDecoder(path: book.parts[0].file.path).decodeAll().samples
        let expected = frequency(source[...])
        let played = frequency(audio.prefix(44_100 * 2))
        #expect(abs(played - expected) < 6, "played \(played) Hz, the part is \(expected) Hz")
        #expect(try listening(fixture).speed == 2)
        await fixture.finish()
    }

    /// An hour after the last session the player goes back 30 s (never before the start), and says so; `--rewind`
    /// and `--skip-silence` are kept for the patron, and `--no-skip-silence` turns skipping off again.
    @Test func afterAnHourAwayItGoesBackAndTheComfortsAreKept() async throws {
        let fixture = try await ready()
        let (_, environment) = disk(fixture)
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        let edition = try store.resolveEdition("7d3c0002", in: try store.library(named: "demo"))
        let parts = try book(fixture).parts
        func saveAnHourAgo() throws -> Double {
            let position = ListeningPosition(part: 2, seconds: 2, readingOrderItem: parts[2].readingOrderItem,
                                             device: try store.deviceID(), deviceName: nil, at: Date().addingTimeInterval(-3_600))
            try store.savePosition(position, of: edition, percent: 60, finished: false)
            return try bookSeconds(position, in: try book(fixture))
        }
        let saved = try saveAnHourAgo()
        let back = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "1s"], environment: environment)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.hasPrefix("Resuming at \(Clock.format(saved)). Back \(Int(saved.rounded())) s after an hour's pause: "
                                      + "from 0:00.\nPlaying The Adventures of Sherlock Holmes at 0:00 of"), "\(back.stdout)")
        #expect((try listening(fixture).position?.part ?? -1) == 0)

        // Off, and kept off: the next session an hour later starts where it was saved.
        _ = try saveAnHourAgo()
        let off = try await fixture.shelf.run(
            ["listen", "7d3c0002", "--no-ui", "--for", "1s", "--rewind", "off", "--skip-silence"], environment: environment)
        #expect(off.status == 0, "\(off.stderr)")
        #expect(off.stdout.hasPrefix("Resuming at \(Clock.format(saved)).\nPlaying"), "\(off.stdout)")
        #expect(off.stdout.contains("1.0× speed, skipping silence."), "\(off.stdout)")
        _ = try saveAnHourAgo()
        let kept = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "1s"], environment: environment)
        #expect(kept.stdout.hasPrefix("Resuming at \(Clock.format(saved)).\nPlaying"), "\(kept.stdout)")
        #expect(kept.stdout.contains("skipping silence."), "\(kept.stdout)")
        #expect(try store.setting("listen.rewind") == "off" && store.setting("listen.skip-silence") == "on")
        let plain = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "1s", "--no-skip-silence"],
                                                environment: environment)
        #expect(plain.stdout.contains("1.0× speed.\n"), "\(plain.stdout)")
        let wrong = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--rewind", "soon"], environment: environment)
        #expect(wrong.status == 64 && wrong.stderr.contains("--rewind takes auto, off or a length"), "\(wrong.stderr)")
        let fast = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--speed", "4.5"], environment: environment)
        #expect(fast.status == 64 && fast.stderr.contains("--speed must be 0.5 to 4.0"), "\(fast.stderr)")
        await fixture.finish()
    }

    /// Moby Dick has no copy free: the patron hears its sample before joining the hold. Nothing is borrowed or
    /// kept but the fact it was heard; a withdrawn sample is one line and its own status.
    @Test func aSampleIsHeardWithoutBorrowingAndOnlyThatIsKept() async throws {
        let fixture = try await ready(download: false)
        let moby = "urn:uuid:7d3c0004-5a1e-4c6b-9f0e-d0c5e1f00004"
        let (file, environment) = disk(fixture)
        let show = try await fixture.shelf.run(["show", "7d3c0004"])
        #expect(show.stdout.contains("shelf listen 7d3c0004 --sample"), "\(show.stdout)")
        #expect(!show.stdout.contains("heard"), "\(show.stdout)")
        let result = try await fixture.shelf.run(["listen", "7d3c0004", "--sample", "--no-ui"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "The library's sample of Moby Dick: nothing is kept but that you heard it.", "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("Playing the sample of Moby Dick at 0:00 of 0:0") == true, "\(lines)")
        #expect(lines.last == "End of the sample of Moby Dick.", "\(lines)")
        // What reached the device is the sample: the first part's 3 s tone.
        let heard = Double(audible(try samples(file)).count * 2) / Double(Self.bytesPerSecond)
        #expect(abs(heard - 3) < 0.35, "heard \(heard) s")
        #expect(await fixture.server.state.sampleRequestCount(moby) == 1)
        // Nothing kept: no position, no loan, no file; only that it was heard.
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        let edition = try store.resolveEdition("7d3c0004", in: try store.library(named: "demo"))
        let state = try store.listeningState(of: edition)
        #expect(state.position == nil && state.consumption == .new, "\(state)")
        #expect(try store.summary(of: edition).entitlement != .loan)
        #expect(!FileManager.default.fileExists(atPath: home.files(library: edition.libraryID, edition: edition.rowID).path))
        #expect(try store.sampleHeard(edition) != nil)
        let again = try await fixture.shelf.run(["show", "7d3c0004"])
        #expect(again.stdout.contains("shelf listen 7d3c0004 --sample (heard just now)"), "\(again.stdout)")
        // A sample given as a manifest of parts (The Count of Monte Cristo's) plays the same way.
        let monte = try await fixture.shelf.run(["listen", "7d3c0008", "--sample", "--no-ui"], environment: environment)
        #expect(monte.status == 0, "\(monte.stderr)")
        #expect(monte.stdout.contains("Playing the sample of The Count of Monte Cristo at 0:00 of 0:0"), "\(monte.stdout)")
        #expect(monte.stdout.hasSuffix("End of the sample of The Count of Monte Cristo.\n"), "\(monte.stdout)")
        #expect(await fixture.server.state.sampleRequestCount(DemoState.manifestSampleID) == 1)
        // A title with no sample says so; a withdrawn one too, each with its own status.
        let none = try await fixture.shelf.run(["listen", "7d3c0003", "--sample", "--no-ui"], environment: environment)
        #expect(none.status == ShelfExit.notFound.rawValue, "\(none.status) \(none.stderr)")
        #expect(none.stderr == "shelf: the library's catalog offers no sample of Frankenstein\n", "\(none.stderr)")
        await fixture.server.state.withdrawSample(moby)
        let gone = try await fixture.shelf.run(["listen", "7d3c0004", "--sample", "--no-ui"], environment: environment)
        #expect(gone.status == ShelfExit.noSuchPage.rawValue, "\(gone.status) \(gone.stderr)")
        #expect(gone.stderr.hasPrefix("shelf: the library no longer serves the sample of Moby Dick at "), "\(gone.stderr)")
        #expect(gone.stderr.split(separator: "\n").count == 1, "\(gone.stderr)")
        await fixture.finish()
    }

    @Test func aPositionFromAnotherDeviceIsPickedUpAndSaid() async throws {
        let fixture = try await ready()
        // A phone saved its place 2.5 s into the third part, after this computer last played.
        try await fixture.server.state.postAnnotation(
            username: "demo", workID: Self.sherlock, motivation: .idling, readingOrderItem: "3.mp3",
            offsetMilliseconds: 2_500, device: "Pixel 7", time: Date().addingTimeInterval(60))
        let (_, environment) = disk(fixture)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "1s"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let parts = try book(fixture).parts
        let expected = try bookSeconds(
            ListeningPosition(part: 2, seconds: 2.5, readingOrderItem: "", device: "", deviceName: nil, at: Date()),
            in: try book(fixture))
        #expect(parts.count == 4)
        #expect(result.stdout.hasPrefix("Resuming at \(Clock.format(expected)) from Pixel 7."), "\(result.stdout)")
        let state = try listening(fixture)
        #expect(state.position?.part == 2)
        #expect((state.position?.seconds ?? 0) > 2.5 && (state.position?.seconds ?? 0) < 4.0, "\(String(describing: state.position))")
        // Our own position went to the library as the one idling annotation, with the audiobook locator.
        let annotations = await fixture.server.state.annotations(for: "demo", workID: Self.sherlock)
        let idling = annotations.filter { $0.motivation == .idling }
        #expect(idling.count == 1)
        #expect(idling.first?.readingOrderItem.hasSuffix("/3.mp3") == true, "\(String(describing: idling.first?.readingOrderItem))")
        #expect((idling.first?.offsetMilliseconds ?? 0) > 2_500)
        await fixture.finish()
    }

    @Test func killedWithSIGKILLItResumesWithinThreeSeconds() async throws {
        let fixture = try await ready(partSeconds: 20)
        let (file, environment) = disk(fixture)
        let (process, _, _) = try fixture.shelf.start(["listen", "7d3c0002", "--no-ui", "--speed", "3"], environment: environment)
        try await offloaded { Thread.sleep(forTimeInterval: 8) }
        kill(process.processIdentifier, SIGKILL)
        try await offloaded { process.waitUntilExit() }
        #expect(process.terminationReason == .uncaughtSignal)
        // What had been heard, by the bytes the device took (at 3×).
        let heard = Double(audible(try samples(file)).count * 2) / Double(Self.bytesPerSecond) * 3
        #expect(heard > 15, "only \(heard) s were heard")
        let saved = try bookSeconds(try listening(fixture).position, in: try book(fixture))
        // Saved every 2 s of the book; 1 s more for the device's queue and the tick.
        #expect(saved <= heard + 0.5 && saved >= heard - 3, "saved \(saved) s, heard \(heard) s")
        // The next listen starts there.
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "1s"], environment: environment)
        #expect(result.stdout.hasPrefix("Resuming at \(Clock.format(saved))."), "\(result.stdout)")
        await fixture.finish()
    }

    @Test func terminateAndHangUpSaveThePositionAndExitWithTheSignal() async throws {
        let fixture = try await ready()
        for (signal, name) in [(SIGTERM, "term.raw"), (SIGHUP, "hup.raw"), (SIGINT, "int.raw")] {
            let (file, environment) = disk(fixture, name)
            let (process, out, _) = try fixture.shelf.start(
                ["listen", "7d3c0002", "--no-ui", "--from", "0:01"], environment: environment)
            try await offloaded { Thread.sleep(forTimeInterval: 1.5) }
            kill(process.processIdentifier, signal)
            let stdout = try await output(of: process, out)
            #expect(process.terminationStatus == 128 + signal)
            #expect(stdout.contains("Position saved."), "\(stdout)")
            let heard = 1 + Double(audible(try samples(file)).count * 2) / Double(Self.bytesPerSecond)
            let saved = try bookSeconds(try listening(fixture).position, in: try book(fixture))
            #expect(abs(saved - heard) < 0.4, "signal \(signal): saved \(saved) s, heard \(heard) s")
        }
        await fixture.finish()
    }

    @Test func aMarkMadeWhileItPlaysWinsOverTheSavesThatFollow() async throws {
        let fixture = try await ready(partSeconds: 20)
        let (_, environment) = disk(fixture, "mark.raw")
        let (process, out, _) = try fixture.shelf.start(
            ["listen", "7d3c0002", "--no-ui", "--from", "0:01"], environment: environment)
        // Playing, once it saved a position.
        #expect(try await eventually { (try? listening(fixture))?.consumption == .inProgress })
        let mark = try await fixture.shelf.run(["mark", "7d3c0002", "--played"])
        #expect(mark.status == 0, "\(mark.stderr)")
        let marked = try listening(fixture).position
        // The player saves again as it plays (every 2 s of the book)...
        #expect(try await eventually { (try? listening(fixture))?.position != marked })
        #expect(process.isRunning, "the player ended before its saves after the mark")
        kill(process.processIdentifier, SIGTERM)
        let stdout = try await output(of: process, out)
        #expect(stdout.contains("Position saved."), "\(stdout)")
        // ...and saves its position at the end, but the patron's mark stands.
        let state = try listening(fixture)
        #expect(state.consumption == .finished, "\(state)")
        #expect(state.position != nil && state.position != marked)
        await fixture.finish()
    }

    /// With no screen, no key could play again: the timer fades out and ends the session (status 0, the position
    /// saved), as `--for` does.
    @Test func theSleepTimerFadesOutAndEndsWithoutAScreen() async throws {
        let fixture = try await ready()
        let (file, environment) = disk(fixture)
        let result = try await fixture.shelf.run(
            ["listen", "7d3c0002", "--no-ui", "--from", "0:01", "--sleep", "6s"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Sleep timer: Stopped at 0:07 of "), "\(result.stdout)")
        #expect(result.stdout.contains("Position saved."), "\(result.stdout)")
        let audio = audible(try samples(file))
        let heard = Double(audio.count * 2) / Double(Self.bytesPerSecond)
        #expect(abs(heard - 6) < 0.4, "heard \(heard) s")
        // The last second is quieter than the first: a fade, not a cut.
        let peak = { (slice: ArraySlice<Int16>) in slice.map { abs(Int($0)) }.max() ?? 0 }
        let start = peak(audio.prefix(44_100 * 2))
        let end = peak(audio.suffix(44_100 / 2 * 2))
        #expect(end < start / 3, "peak \(start) at the start, \(end) at the end")
        let saved = try bookSeconds(try listening(fixture).position, in: try book(fixture))
        #expect(abs(saved - 7) < 0.4, "saved \(saved)")
        await fixture.finish()
    }

    @Test func aLostAudioDeviceStopsAndKeepsThePosition() async throws {
        let fixture = try await ready()
        let fifo = fixture.shelf.home.appendingPathComponent("device.fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let reader = Thread {
            guard let handle = FileHandle(forReadingAtPath: fifo.path) else { return }
            var total = 0
            while total < Self.bytesPerSecond * 2 {
                let data = handle.readData(ofLength: 16_384)
                if data.isEmpty { break }
                total += data.count
            }
            try? handle.close()
        }
        reader.start()
        let result = try await fixture.shelf.run(
            ["listen", "7d3c0002", "--no-ui", "--from", "0:01"],
            environment: ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": fifo.path])
        #expect(result.status == ShelfExit.audioDevice.rawValue, "\(result.stderr)")
        #expect(result.stderr.contains("shelf: the audio device went away at 0:0"), "\(result.stderr)")
        let saved = try bookSeconds(try listening(fixture).position, in: try book(fixture))
        #expect(saved > 1.5 && saved < 3.6, "saved \(saved)")
        await fixture.finish()
    }

    @Test func fromOrChapterPastTheEndIsAUsageErrorNamingShelfListen() async throws {
        let fixture = try await ready()
        let (file, environment) = disk(fixture)
        let from = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "99:00"], environment: environment)
        #expect(from.status == ShelfExit.usage.rawValue, "\(from.stderr)")
        // SDL's disk driver warns on its own (CRITICAL: lines); the rest is shelf's one line.
        let shelfLines = { (stderr: String) in stderr.split(separator: "\n").filter { !$0.hasPrefix("CRITICAL:") } }
        #expect(shelfLines(from.stderr) == ["shelf listen: --from 99:00 is past the end of The Adventures of Sherlock Holmes (0:12)"])
        let chapter = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--chapter", "99"], environment: environment)
        #expect(chapter.status == ShelfExit.usage.rawValue, "\(chapter.stderr)")
        let lines = shelfLines(chapter.stderr)
        #expect(lines.count == 1 && lines[0].hasPrefix("shelf listen: --chapter 99 is past the last chapter of The Adventures"), "\(lines)")
        #expect(!chapter.stderr.contains("shelf-listen"))
        // Nothing played, nothing marked finished.
        #expect(audible((try? samples(file)) ?? []).isEmpty)
        #expect(try listening(fixture).consumption != .finished)
        await fixture.finish()
    }

    @Test func aSecondPlayerOfTheSameTitleIsRefused() async throws {
        let fixture = try await ready()
        let (_, environment) = disk(fixture, "first.raw")
        let (first, _, _) = try fixture.shelf.start(["listen", "7d3c0002", "--no-ui"], environment: environment)
        try await offloaded { Thread.sleep(forTimeInterval: 1) }
        let second = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui"], environment: disk(fixture, "second.raw").1)
        #expect(second.status == ShelfExit.busy.rawValue, "\(second.stderr)")
        #expect(second.stderr.contains("shelf: this title is already playing in another shelf listen (pid \(first.processIdentifier)); "
                                       + "quit that one first"), "\(second.stderr)")
        kill(first.processIdentifier, SIGTERM)
        try await offloaded { first.waitUntilExit() }
        #expect(first.terminationStatus == 128 + SIGTERM)
        await fixture.finish()
    }

    @Test func noDeviceIsAClearErrorWithItsOwnStatus() async throws {
        let fixture = try await ready()
        let result = try await fixture.shelf.run(
            ["listen", "7d3c0002", "--no-ui"], environment: ["SDL_AUDIODRIVER": "shelf-no-such-driver"])
        #expect(result.status == ShelfExit.audioDevice.rawValue)
        #expect(result.stderr.hasPrefix("shelf: no audio device: set SDL_AUDIODRIVER"), "\(result.stderr)")
        #expect(try listening(fixture).position == nil)
        await fixture.finish()
    }

    @Test func aDamagedPartIsSkippedWithAMessage() async throws {
        let fixture = try await ready()
        let parts = try book(fixture).parts
        try Data(repeating: 0x5A, count: 4_000).write(to: parts[1].file)
        let (_, environment) = disk(fixture)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "0:02"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("shelf: part 2 cannot be played ("), "\(result.stderr)")
        #expect(result.stderr.contains("skipped to part 3"))
        #expect(result.stdout.contains("Finished The Adventures of Sherlock Holmes."))
        await fixture.finish()
    }

    @Test func aPartFileThatWentMissingStopsThereWithTheWayBack() async throws {
        let fixture = try await ready()
        try FileManager.default.removeItem(at: try book(fixture).parts[2].file)
        let (_, environment) = disk(fixture)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "0:04"], environment: environment)
        #expect(result.status == ShelfExit.playbackFailed.rawValue, "\(result.stderr)")
        #expect(result.stderr.contains("shelf: part 3 is not on this computer and cannot be downloaded now (its file is missing; "
                                       + "run `shelf archive 7d3c0002`, then `shelf download 7d3c0002`); the position is saved"),
                "\(result.stderr)")
        let state = try listening(fixture)
        #expect(state.position?.part == 1, "\(String(describing: state.position))")
        await fixture.finish()
    }

    @Test func aPartLongerOrShorterThanItsManifestSaysIsNotedAndTheFileWins() async throws {
        let fixture = try await ready()
        // The manifest claimed an hour for the first part (the store keeps what it said).
        let database = fixture.shelf.home.appendingPathComponent("shelf.sqlite").path
        let edit = ChildProcess()
        edit.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        edit.arguments = ["python3", "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                          + "c.execute('UPDATE part SET duration = 3600 WHERE idx = 0'); c.commit()", database]
        try edit.run()
        edit.waitUntilExit()
        #expect(edit.terminationStatus == 0)
        let (_, environment) = disk(fixture)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "0:09"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("shelf: note: part 1 lasts 0:03, not the 1:00:00 its manifest says; shelf goes by the files"),
                "\(result.stderr)")
        // The book is as long as its files: 0:09 is in the last part, and it ends three seconds later.
        #expect(result.stdout.hasPrefix("Playing The Adventures of Sherlock Holmes at 0:09 of 0:12"), "\(result.stdout)")
        #expect(try listening(fixture).position?.part == 3)
        await fixture.finish()
    }

    @Test func aTitleStillDownloadingPlaysAsItsPartsArrive() async throws {
        let fixture = try await ready(download: false)
        // Slow parts, about a second each; the first held until the player says it waits for it.
        await fixture.server.state.setAudioFaults(AudioFaults(bytesPerSecond: 12_000), for: Self.sherlock)
        let (_, environment) = disk(fixture)
        let result = try await fixture.run(
            ["listen", "7d3c0002", "--no-ui"], environment: environment,
            holding: await fixture.server.state.partPath(Self.sherlock, 1), until: "Buffering: waiting for part 1")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Buffering: waiting for part 1"), "\(result.stdout)")
        #expect(result.stdout.contains("Finished The Adventures of Sherlock Holmes."), "\(result.stdout)")
        let show = try await fixture.shelf.run(["show", "7d3c0002"])
        #expect(show.stdout.contains("State         Downloaded"), "\(show.stdout)")
        await fixture.finish()
    }

    @Test func aTitleNeverDownloadedWhileOfflineSaysSo() async throws {
        let fixture = try await ready(download: false)
        await fixture.server.stop()
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui"], environment: disk(fixture).1)
        #expect(result.status == ShelfExit.offline.rawValue, "\(result.stderr)")
        // One line from shelf (SDL's disk driver announces itself on stderr too).
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("shelf:") }
        #expect(lines.count == 1, "\(result.stderr)")
        #expect(lines.first?.hasPrefix("shelf: The Adventures of Sherlock Holmes is not downloaded and cannot be fetched now (") == true)
        #expect(lines.first?.hasSuffix("connect and run `shelf download 7d3c0002`") == true, "\(result.stderr)")
        fixture.shelf.cleanUp()
    }

    @Test func aMalformedAnnotationIsIgnoredWithAWarning() async throws {
        let fixture = try await ready()
        let (_, environment) = disk(fixture)
        _ = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--from", "0:04", "--for", "1s"], environment: environment)
        let saved = try bookSeconds(try listening(fixture).position, in: try book(fixture))
        #expect(saved > 4.5)
        await fixture.server.state.setMalformedAnnotation(.unparseableLocator)
        let result = try await fixture.shelf.run(["listen", "7d3c0002", "--no-ui", "--for", "1s"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("shelf: warning: "), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Resuming at \(Clock.format(saved))."), "\(result.stdout)")
        await fixture.finish()
    }
}

/// A tmux server of its own, so a test can type at the full-screen player and read its screen.
struct Tmux: Sendable {
    let socket = "shelf-test-\(UUID().uuidString.prefix(8))"

    /// Runs a tmux command; only `output` commands read what it prints (the server it may start keeps the
    /// descriptors it was given, so a pipe would never reach its end).
    @discardableResult
    func run(_ arguments: [String], output: Bool = false) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["-L", socket] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard output else {
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return ""
        }
        return String(decoding: try process.runReadingOutput(), as: UTF8.self)
    }

    /// Starts `command` in a 100 × 30 window; the server ends with it.
    func start(_ command: String) throws {
        try Self.spawn(["/usr/bin/tmux", "-L", socket, "new-session", "-d", "-x", "100", "-y", "30", command])
    }

    /// Runs a program to its end with no input or output (ChildProcess: the tmux server that `new-session` forks
    /// keeps none of this process's descriptors, so the wait ends when `tmux` does, and starts with no signal
    /// blocked, so the server and the player in it hear their SIGCHLD and SIGHUP).
    static func spawn(_ arguments: [String]) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
    }

    func keys(_ keys: String...) throws { try run(["send-keys", "-t", "0"] + keys) }

    func screen() throws -> String { try run(["capture-pane", "-p", "-t", "0"], output: true) }

    /// The screen with its colours and attributes as escape sequences (`capture-pane -e`).
    func screenWithEscapes() throws -> String { try run(["capture-pane", "-p", "-e", "-t", "0"], output: true) }

    /// Waits until the screen shows `text`; the screen as it last was. The wait ends as soon as it shows, so the
    /// long limit costs nothing when all is well and holds on a machine busy with other work.
    func waitFor(_ text: String, timeout: Double = 30) throws -> String {
        try waitUntil(timeout: timeout) { $0.contains(text) }
    }

    /// Waits until `done` holds for the screen; the screen as it last was.
    func waitUntil(timeout: Double = 30, _ done: (String) -> Bool) throws -> String {
        let started = Date()
        var last = ""
        while Date().timeIntervalSince(started) < timeout {
            last = try screen()
            if done(last) { return last }
            usleep(50_000)
        }
        return last
    }

    /// Ends the server and everything in it (the programs in it get a hang-up).
    func kill() { try? Self.spawn(["/usr/bin/tmux", "-L", socket, "kill-server"]) }

    /// Types `keys`, then waits until the screen shows `text`; the screen as it last was.
    func press(_ keys: String..., until text: String) async throws -> String {
        try await offloaded {
            try run(["send-keys", "-t", "0"] + keys)
            return try waitFor(text)
        }
    }
}

extension ListenCLITests {
    private func command(_ fixture: CLIFixture, _ arguments: String) -> String {
        let home = fixture.shelf.home.path
        return "env SDL_AUDIODRIVER=disk SDL_DISKAUDIOFILE=\(home)/tmux.raw \(ShelfRunner.executable.path) listen 7d3c0002 --rewind off "
            + "--home \(home) \(arguments); echo \"EXIT=$?\" > \(home)/exit-status"
    }

    /// The positions the player saved, in order, from its `-v` log (`2> listen.log`): (part, seconds) as logged.
    private func savedPositions(_ fixture: CLIFixture) throws -> [String] {
        let log = (try? String(contentsOf: fixture.shelf.home.appendingPathComponent("listen.log"), encoding: .utf8)) ?? ""
        let prefix = "shelf: saved the position: "
        return log.split(separator: "\n").filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    /// Pauses the player with the space key: once, or again when the book had played to its end meanwhile (a space
    /// there plays it from the start). Waits on what the screen says, never on how long playing takes.
    private func pause(_ tmux: Tmux) async throws -> String {
        try await offloaded {
            var screen = try tmux.screen()
            for _ in 0..<4 where !screen.contains("❚❚ paused") {
                let wasPlaying = screen.contains("▶ playing")
                try tmux.keys("Space")
                screen = try tmux.waitUntil { $0.contains("❚❚ paused") || $0.contains("▶ playing") != wasPlaying }
            }
            return screen
        }
    }

    /// Waits until the stored position is `part`, `seconds` (±10 ms); the position as it last was.
    private func waitForPosition(_ fixture: CLIFixture, part: Int, seconds: Double) async throws -> ListeningPosition? {
        var last: ListeningPosition?
        return try await eventually { () -> ListeningPosition? in
            last = try listening(fixture).position
            guard let last, last.part == part && abs(last.seconds - seconds) < 0.01 else { return nil }
            return last
        } ?? last
    }

    @Test func theKeysMoveThePositionExactly() async throws {
        let fixture = try await ready()
        let tmux = Tmux()
        defer { tmux.kill() }
        let book = try book(fixture)
        let lengths = try book.parts.map { try AudioDecoder(path: $0.file.path).duration ?? 0 }
        let total = lengths.reduce(0, +)
        // -v: the log says each position saved, so a save that playing soon replaces is still seen.
        let started = command(fixture, "--from 0:01 -v 2> \(fixture.shelf.home.path)/listen.log")
        try await offloaded { try tmux.start(started) }
        // Checked only through what lasts: playing from 0:01 may be anywhere in its 12 s on a busy machine.
        var screen = try await offloaded {
            try tmux.waitUntil { $0.contains("▶ playing") || $0.contains("■ finished") || $0.contains("❚❚ paused") }
        }
        #expect(screen.contains("The Adventures of Sherlock Holmes"), "\(screen)")
        #expect(screen.contains("▶ playing") || screen.contains("■ finished"), "\(screen)")
        screen = try await pause(tmux)
        #expect(screen.contains("❚❚ paused"), "\(screen)")
        // ← goes back to the start, paused; n: the next chapter, Chapter 1, one second into the first part; n
        // again: Chapter 2 starts the second part.
        try await offloaded { try tmux.keys("Left") }
        var position = try await waitForPosition(fixture, part: 0, seconds: 0)
        #expect(position?.part == 0 && position?.seconds == 0, "\(String(describing: position))")
        try await offloaded { try tmux.keys("n") }
        position = try await waitForPosition(fixture, part: 0, seconds: 1)
        #expect(position?.part == 0 && abs((position?.seconds ?? 0) - 1) < 0.01, "\(String(describing: position))")
        try await offloaded { try tmux.keys("n") }
        position = try await waitForPosition(fixture, part: 1, seconds: 0)
        #expect(position?.part == 1 && position?.seconds == 0, "\(String(describing: position))")
        // . and , move 5 s across the part boundary and back.
        try await offloaded { try tmux.keys(".") }
        let ahead = lengths[0] + 5 - (lengths[0] + lengths[1])
        position = try await waitForPosition(fixture, part: 2, seconds: ahead)
        #expect(position?.part == 2 && abs((position?.seconds ?? 0) - ahead) < 0.01, "\(String(describing: position))")
        try await offloaded { try tmux.keys(",") }
        position = try await waitForPosition(fixture, part: 1, seconds: 0)
        #expect(position?.part == 1 && abs(position?.seconds ?? 1) < 0.01, "\(String(describing: position))")
        // p at a chapter's start goes to the one before: Chapter 1, one second into the first part.
        try await offloaded { try tmux.keys("p") }
        position = try await waitForPosition(fixture, part: 0, seconds: 1)
        #expect(position?.part == 0 && abs((position?.seconds ?? 0) - 1) < 0.01, "\(String(describing: position))")
        // → skips 30 s, which stops just short of the end; ← goes back to the start.
        try await offloaded { try tmux.keys("Right") }
        position = try await waitForPosition(fixture, part: 3, seconds: total - 0.25 - (total - lengths[3]))
        #expect(position?.part == 3, "\(String(describing: position))")
        try await offloaded { try tmux.keys("Left") }
        position = try await waitForPosition(fixture, part: 0, seconds: 0)
        #expect(position?.part == 0 && position?.seconds == 0, "\(String(describing: position))")
        // ] is faster, remembered for the book.
        screen = try await tmux.press("]", until: "1.25×")
        #expect(screen.contains("1.25×"))
        #expect(try listening(fixture).speed == 1.25)
        // s asks for the sleep timer; + adds five minutes.
        screen = try await tmux.press("s", until: "Sleep after")
        try await offloaded { try tmux.keys("1", "5") }
        screen = try await tmux.press("Enter", until: "Sleep timer: 15 minutes")
        #expect(screen.contains("sleep in 15:00"), "\(screen)")
        screen = try await tmux.press("+", until: "Sleep timer: 20:00 left.")
        #expect(screen.contains("sleep in 20:00"), "\(screen)")
        // t: the table of contents; pick the second entry: enter plays it, from a pause too.
        screen = try await tmux.press("t", until: "Contents")
        #expect(screen.contains("Opening Credits") && screen.contains("Chapter 4"), "\(screen)")
        let before = try savedPositions(fixture).count
        try await offloaded { try tmux.keys("Down", "Enter") }
        screen = try await offloaded { try tmux.waitUntil { $0.contains("▶ playing") || $0.contains("■ finished") } }
        #expect(screen.contains("▶ playing") || screen.contains("■ finished"), "\(screen)")
        // The pick saved Chapter 1's start exactly, before it played on (the log keeps what the next save replaces).
        let picked = try await eventually { try self.savedPositions(fixture).dropFirst(before).first }
        let saves = try savedPositions(fixture)
        #expect(picked == "part 1 at 1.000 s", "\(saves)")
        // b: a bookmark where the player is paused (Chapter 1's start again: ←, then n), sent to the library with
        // the bookmarking motivation.
        screen = try await pause(tmux)
        #expect(screen.contains("❚❚ paused"), "\(screen)")
        try await offloaded { try tmux.keys("Left") }
        _ = try await waitForPosition(fixture, part: 0, seconds: 0)
        try await offloaded { try tmux.keys("n") }
        position = try await waitForPosition(fixture, part: 0, seconds: 1)
        #expect(position?.part == 0 && abs((position?.seconds ?? 0) - 1) < 0.01, "\(String(describing: position))")
        screen = try await tmux.press("b", until: "name (enter to skip)")
        screen = try await tmux.press("Enter", until: "Bookmark added at 0:01")
        #expect(screen.contains("Bookmark added at 0:01"), "\(screen)")
        // ? shows the keys; any key goes back.
        screen = try await tmux.press("?", until: "Keys")
        #expect(screen.contains("table of contents"), "\(screen)")
        _ = try await tmux.press("x", until: "Chapter 1 (1 of 4)")
        try await offloaded { try tmux.keys("q") }
        #expect(try await fixture.exitStatus() == "EXIT=0\n")
        let marks = await fixture.server.state.annotations(for: "demo", workID: Self.sherlock).filter { $0.motivation == .bookmarking }
        #expect(marks.count == 1)
        // Where the player stood: Chapter 1's start, one second into the book.
        #expect(marks.first.map(\.offsetMilliseconds) == 1_000, "\(marks)")
        await fixture.finish()
    }

    @Test func closingTheTerminalSavesThePosition() async throws {
        let fixture = try await ready()
        let tmux = Tmux()
        let started = command(fixture, "--from 0:01")
        try await offloaded { try tmux.start(started) }
        let screen = try await offloaded { try tmux.waitFor("▶ playing") }
        #expect(screen.contains("▶ playing"), "\(screen)")
        try await offloaded { Thread.sleep(forTimeInterval: 1.5) }
        // The window goes away: the player gets a hang-up and its terminal ends.
        let closed = Date()
        try await offloaded { tmux.kill() }
        let raw = fixture.shelf.home.appendingPathComponent("tmux.raw")
        let saved = try await eventually { () -> ListeningPosition? in
            guard let position = try listening(fixture).position, position.at > closed else { return nil }
            return position
        }
        // The player is gone: its device (which writes even silence while open) has stopped writing.
        try await offloaded { Thread.sleep(forTimeInterval: 0.3) }
        let size = { (try? FileManager.default.attributesOfItem(atPath: raw.path)[.size] as? Int) ?? -1 }
        let before = size()
        try await offloaded { Thread.sleep(forTimeInterval: 0.5) }
        #expect(size() == before, "the player still writes audio after its terminal closed")
        let heard = 1 + Double(audible(try samples(raw)).count * 2) / Double(Self.bytesPerSecond)
        let seconds = try bookSeconds(saved, in: try book(fixture))
        #expect(abs(seconds - heard) < 0.5, "saved \(seconds) s, heard \(heard) s")
        await fixture.finish()
    }

    @Test func chaptersNotDownloadedShowTheirProgressAndCannotBePicked() async throws {
        let fixture = try await ready(download: false)
        // The third part crawls; the others arrive at once.
        await fixture.server.state.setAudioFaults(AudioFaults(parts: [3], bytesPerSecond: 400), for: Self.sherlock)
        let tmux = Tmux()
        defer { tmux.kill() }
        let started = command(fixture, "")
        try await offloaded { try tmux.start(started) }
        var screen = try await offloaded { try tmux.waitFor("parts 3/4 downloaded") }
        #expect(screen.contains("parts 3/4 downloaded"), "\(screen)")
        screen = try await tmux.press("Space", "t", until: "Contents")
        // The space saved where it paused, before t opened the contents: wherever playing had got to.
        let paused = try listening(fixture).position
        let line = screen.split(separator: "\n").first { $0.contains("Chapter 3") }.map(String.init) ?? ""
        #expect(line.contains("(downloading ") || line.contains("(not downloaded)"), "\(screen)")
        // Typed by its number: the selection starts at the chapter playing had reached, which a busy machine moves.
        screen = try await tmux.press("3", "Enter", until: "is not downloaded yet")
        #expect(screen.contains("Chapter 3 is not downloaded yet (part 3"), "\(screen)")
        // The refused pick moved nothing.
        let position = try listening(fixture).position
        #expect(paused != nil && position?.part == paused?.part && position?.seconds == paused?.seconds,
                "\(String(describing: position)) after \(String(describing: paused))")
        // t leaves the contents, q quits.
        try await offloaded { try tmux.keys("t", "q") }
        #expect(try await fixture.exitStatus() == "EXIT=0\n")
        await fixture.finish()
    }
}
