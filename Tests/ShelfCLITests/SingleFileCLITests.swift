import DemoLibrary
import Foundation
import ShelfCore
import Testing

/// Single-file audiobooks as a patron gets them: the demo library offers an m4b, an mp3, an ogg and a zip of mp3s as
/// plain downloads with no circulation markup (as calibre does); `shelf` downloads them without signing in, and
/// `shelf listen` (real FFmpeg, SDL's disk driver) plays them with the chapters written inside the files.
@Suite(.serialized, .timeLimit(.minutes(5))) struct SingleFileCLITests {
    static let alice = "urn:uuid:7d3c0018-5a1e-4c6b-9f0e-d0c5e1f00018"
    static let jungle = "urn:uuid:7d3c0019-5a1e-4c6b-9f0e-d0c5e1f00019"
    static let peter = "urn:uuid:7d3c001a-5a1e-4c6b-9f0e-d0c5e1f0001a"
    static let willows = "urn:uuid:7d3c001b-5a1e-4c6b-9f0e-d0c5e1f0001b"

    /// A patron who has synced the demo library and never signed in.
    private func synced() async throws -> CLIFixture {
        let fixture = try await CLIFixture()
        let sync = try await fixture.shelf.run(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        return fixture
    }

    private func disk(_ fixture: CLIFixture) -> [String: String] {
        ["SDL_AUDIODRIVER": "disk", "SDL_DISKAUDIOFILE": fixture.shelf.home.appendingPathComponent("out.raw").path]
    }

    private func open(_ fixture: CLIFixture, _ query: String) throws -> (Store, EditionRef, Home) {
        let home = Home(directory: fixture.shelf.home)
        let store = try Store(home: home)
        return (store, try store.resolveEdition(query, in: try store.library(named: "demo")), home)
    }

    /// The chapters each demo file was made with, from the catalog the demo serves.
    private func chapters(_ fixture: CLIFixture, _ id: String) async throws -> [String] {
        try #require(await fixture.server.state.title(id: id)?.singleFile?.chapters)
    }

    /// A single file not downloaded yet, from a slow server: its length and chapters are known only once it is in,
    /// so `--from` and `--chapter` wait for it (they were refused as "past the end … (0:00)"). Its chapters are
    /// the file's three, the third at 0:04.
    @Test(arguments: [(["--from", "0:03"], "0:03"), (["--chapter", "3"], "0:04")])
    func aPlaceInASingleFileNotDownloadedYetWaitsForTheFile(_ start: [String], at time: String) async throws {
        let fixture = try await synced()
        // About 25 KB at 8 KB a second: the file is still coming when the place is checked.
        await fixture.server.state.setAudioFaults(AudioFaults(bytesPerSecond: 8_000), for: Self.alice)
        let result = try await fixture.shelf.run(
            ["listen", "7d3c0018", "--no-ui", "--for", "0.5"] + start, environment: ["SDL_AUDIODRIVER": "dummy"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Playing Alice's Adventures in Wonderland at \(time) of 0:06"), "\(result.stdout)")
        await fixture.finish()
    }

    @Test func anM4bIsFreeToDownloadAndPlaysWithTheChaptersInsideIt() async throws {
        let fixture = try await synced()
        let list = try await fixture.shelf.run(["list"])
        let line = try #require(list.stdout.split(separator: "\n").first { $0.contains("Alice's Adventures") })
        #expect(line.contains("audiobook") && line.hasSuffix("free"), "\(line)")
        let download = try await fixture.shelf.run(["download", "7d3c0018"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("Downloaded Alice's Adventures in Wonderland: 1 part"))
        #expect(await fixture.server.state.singleFileRequestCount(Self.alice) >= 1)

        let result = try await fixture.shelf.run(["listen", "7d3c0018", "--no-ui"], environment: disk(fixture))
        #expect(result.status == 0, "\(result.stderr)")
        let titles = try await chapters(fixture, Self.alice)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Playing Alice's Adventures in Wonderland at 0:00 of 0:06, 1.0× speed.", "\(lines)")
        // One line per chapter change, titled as the file's chapter atoms say, counted out of the file's chapters.
        #expect(lines.filter { $0.contains(" of 3) at ") } == [
            "\(titles[1]) (2 of 3) at 0:02.", "\(titles[2]) (3 of 3) at 0:04.",
        ], "\(lines)")
        #expect(lines.last == "Finished Alice's Adventures in Wonderland.")
        let (store, edition, _) = try open(fixture, "7d3c0018")
        let state = try store.listeningState(of: edition)
        #expect(state.consumption == .finished)
        // The position names the part by the file's own link, as annotations do.
        #expect(state.position?.readingOrderItem.hasSuffix("/files/\(Self.alice)/book.m4b") == true, "\(String(describing: state.position))")

        // The chapters were kept: `shelf show` lists them, and the next session has them without reading the file.
        let show = try await fixture.shelf.run(["show", "7d3c0018"])
        for (index, title) in titles.enumerated() {
            #expect(show.stdout.contains("  \(index + 1)  0:0\(index * 2)  \(title)"), "\(show.stdout)")
        }
        let record = try #require(try store.fulfilment(of: edition))
        #expect(record.manifest.contains("book.m4b#t=2"))
        await fixture.finish()
    }

    @Test func anMp3sID3ChaptersNameWhereListeningStopped() async throws {
        let fixture = try await synced()
        #expect(try await fixture.shelf.run(["download", "7d3c0019"]).status == 0)
        let result = try await fixture.shelf.run(["listen", "7d3c0019", "--no-ui", "--for", "3s"], environment: disk(fixture))
        #expect(result.status == 0, "\(result.stderr)")
        let titles = try await chapters(fixture, Self.jungle)
        #expect(result.stdout.contains("\(titles[1]) (2 of 3) at 0:02."), "\(result.stdout)")
        #expect(result.stdout.contains("in \(titles[1]) (2 of 3). Position saved."), "\(result.stdout)")
        let (store, edition, _) = try open(fixture, "7d3c0019")
        let position = try #require(try store.listeningState(of: edition).position)
        #expect(position.part == 0 && abs(position.seconds - 3) < 0.6, "\(position)")
        #expect(try store.listeningState(of: edition).consumption != .finished)
        await fixture.finish()
    }

    @Test func anOggsChapterCommentsCanBeStartedFrom() async throws {
        let fixture = try await synced()
        #expect(try await fixture.shelf.run(["download", "7d3c001a"]).status == 0)
        let result = try await fixture.shelf.run(["listen", "7d3c001a", "--no-ui", "--chapter", "3"], environment: disk(fixture))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Playing Peter Pan at 0:04 of 0:06"), "\(result.stdout)")
        #expect(result.stdout.contains("Finished Peter Pan."))
        let beyond = try await fixture.shelf.run(["listen", "7d3c001a", "--no-ui", "--chapter", "4"], environment: disk(fixture))
        #expect(beyond.status == ShelfExit.usage.rawValue)
        #expect(beyond.stderr.contains("shelf listen: --chapter 4 is past the last chapter of Peter Pan (it has 3)\n"),
                "\(beyond.stderr)")
        await fixture.finish()
    }

    @Test func aZipOfAudioFilesPlaysItsFilesInOrderAndIgnoresTheRest() async throws {
        let fixture = try await synced()
        let download = try await fixture.shelf.run(["download", "7d3c001b"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(download.stdout.contains("3 parts from its package"), "\(download.stdout)")
        let (store, edition, home) = try open(fixture, "7d3c001b")
        let titles = try await chapters(fixture, Self.willows)
        let book = try store.audiobook(edition, home: home)
        #expect(book.parts.map { $0.file.lastPathComponent } == titles.enumerated().map { "\($0.offset + 1) - \($0.element).mp3" })
        #expect(book.isComplete)
        #expect(book.chapters.map(\.title) == titles.enumerated().map { "\($0.offset + 1) - \($0.element)" })
        let result = try await fixture.shelf.run(["listen", "7d3c001b", "--no-ui", "--chapter", "3"], environment: disk(fixture))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Finished The Wind in the Willows."), "\(result.stdout)")
        await fixture.finish()
    }

    @Test func aZipWithAPathOutsideTheBookIsRefusedAndNothingIsKept() async throws {
        let fixture = try await synced()
        let (_, edition, home) = try open(fixture, "7d3c001b")
        try await fixture.server.state.replaceSingleFile(Self.willows, with: try Self.zip(["../escaped.mp3": "not audio"]))
        let download = try await fixture.shelf.run(["download", "7d3c001b"])
        #expect(download.status != 0)
        #expect(download.stderr.contains("escaped.mp3"), "\(download.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.files(library: edition.libraryID, edition: edition.rowID).path))
        #expect(!FileManager.default.fileExists(
            atPath: home.files(library: edition.libraryID, edition: edition.rowID).deletingLastPathComponent()
                .appendingPathComponent("escaped.mp3").path))

        try await fixture.server.state.replaceSingleFile(Self.willows, with: try Self.zip(["notes.txt": "no audio here"]))
        let empty = try await fixture.shelf.run(["download", "7d3c001b"])
        #expect(empty.status == ShelfExit.protectedContent.rawValue, "\(empty.stderr)")
        #expect(empty.stderr.contains("holds neither a manifest.json nor an audio file"), "\(empty.stderr)")
        #expect(try await fixture.shelf.run(["show", "7d3c001b"]).stdout.contains("State         New"))
        await fixture.finish()
    }

    @Test func aPartThatIsNotAudioIsRefusedBeforeAnythingIsDownloaded() async throws {
        let fixture = try await synced()
        // The catalog says audio/x-m4b, but the link leads to a web page.
        _ = try await fixture.server.state.setAcquisitionHref(id: Self.alice, href: "files/\(Self.alice)/book.html")
        _ = try await fixture.shelf.run(["sync", "--quiet"])
        let download = try await fixture.shelf.run(["download", "7d3c0018"])
        #expect(download.status == ShelfExit.protectedContent.rawValue, "\(download.stderr)")
        #expect(download.stderr.contains("part 1 of its reading order is not audio (its file is .html)"), "\(download.stderr)")
        #expect(await fixture.server.state.singleFileRequestCount(Self.alice) == 0)
        let (store, edition, _) = try open(fixture, "7d3c0018")
        #expect(try store.parts(of: edition).isEmpty)
        #expect(try store.summary(of: edition).state == .new)
        await fixture.finish()
    }

    @Test func aFileFFmpegCannotOpenIsRefusedAndNeverMarkedFinished() async throws {
        let fixture = try await synced()
        // Binary bytes that are no audio (a text or HTML page is refused at download: AudioByNameTests).
        try await fixture.server.state.replaceSingleFile(Self.jungle, with: [0x00, 0x01, 0x02, 0xFE] + Array("not audio at all".utf8) + [0x00, 0x13])
        #expect(try await fixture.shelf.run(["download", "7d3c0019"]).status == 0)
        let result = try await fixture.shelf.run(["listen", "7d3c0019", "--no-ui"], environment: disk(fixture))
        #expect(result.status == ShelfExit.playbackFailed.rawValue, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stderr.contains("part 1 cannot be played"), "\(result.stderr)")
        #expect(result.stderr.contains("it is not marked finished"), "\(result.stderr)")
        let (store, edition, _) = try open(fixture, "7d3c0019")
        #expect(try store.listeningState(of: edition).consumption != .finished)
        #expect(try await fixture.shelf.run(["list"]).stdout.split(separator: "\n")
            .first { $0.contains("The Jungle Book") }?.contains("finished") == false)
        await fixture.finish()
    }

    /// A stored zip of the given text files, names written as given.
    static func zip(_ files: [String: String]) throws -> [UInt8] {
        var archive = StoredZip()
        for (name, text) in files.sorted(by: { $0.key < $1.key }) { archive.add(name, Array(text.utf8)) }
        return archive.finished()
    }
}
