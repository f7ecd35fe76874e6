import Foundation
import ShelfSpawn
import ShelfPlayback
import Testing

/// Chapters read from files ffmpeg writes here, in each of the ways containers keep them.
@Suite(.timeLimit(.minutes(5))) struct EmbeddedChaptersTests {
    static let titles = ["The Beginning", "A Middle; with = signs", "The End"]

    /// Runs ffmpeg with `arguments`, writing `name` in `directory`.
    private func ffmpeg(_ arguments: [String], _ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-loglevel", "error", "-y"] + arguments + [url.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return url
    }

    /// Three chapters of 1.5, 2 and 2.5 s, as an ffmetadata file.
    private func metadata(in directory: URL) throws -> URL {
        var text = ";FFMETADATA1\ntitle=Test Book\n"
        let bounds = [0, 1500, 3500, 6000]
        for (index, title) in Self.titles.enumerated() {
            let escaped = title.replacingOccurrences(of: ";", with: "\\;").replacingOccurrences(of: "=", with: "\\=")
            text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(bounds[index])\nEND=\(bounds[index + 1])\ntitle=\(escaped)\n"
        }
        let url = directory.appendingPathComponent("chapters.txt")
        try Data(text.utf8).write(to: url)
        return url
    }

    private let tone = ["-f", "lavfi", "-i", "sine=frequency=440:duration=6:sample_rate=22050"]

    private func expectThreeChapters(_ chapters: [EmbeddedChapter], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(chapters.map(\.title) == Self.titles, sourceLocation: sourceLocation)
        let starts = chapters.map(\.start)
        let ends = chapters.map(\.end)
        for (found, expected) in zip(starts, [0, 1.5, 3.5]) { #expect(abs(found - expected) < 0.01, sourceLocation: sourceLocation) }
        for (found, expected) in zip(ends, [1.5, 3.5, 6]) { #expect(abs(found - expected) < 0.1, sourceLocation: sourceLocation) }
    }

    @Test func anM4bsChapterAtomsAreRead() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let meta = try metadata(in: directory)
        let file = try ffmpeg(tone + ["-i", meta.path, "-map", "0:a", "-map_metadata", "1", "-map_chapters", "1",
                                      "-c:a", "aac", "-b:a", "32k", "-f", "ipod"], "book.m4b", in: directory)
        expectThreeChapters(try EmbeddedChapters.read(file))
    }

    @Test func anMp3sID3ChapterFramesAreRead() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let meta = try metadata(in: directory)
        let file = try ffmpeg(tone + ["-i", meta.path, "-map", "0:a", "-map_metadata", "1", "-map_chapters", "1",
                                      "-c:a", "libmp3lame", "-b:a", "32k", "-id3v2_version", "3"], "book.mp3", in: directory)
        expectThreeChapters(try EmbeddedChapters.read(file))
    }

    @Test func anOggsChapterCommentsAreReadAndTheLastEndsWithTheFile() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var comments: [String] = []
        for (index, (title, start)) in zip(Self.titles, ["00:00:00.000", "00:00:01.500", "00:00:03.500"]).enumerated() {
            let key = String(format: "CHAPTER%03d", index + 1)
            comments += ["-metadata", "\(key)=\(start)", "-metadata", "\(key)NAME=\(title)"]
        }
        let file = try ffmpeg(tone + comments + ["-c:a", "libvorbis", "-q:a", "0"], "book.ogg", in: directory)
        expectThreeChapters(try EmbeddedChapters.read(file))
    }

    @Test func aFileWithoutChaptersHasNone() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try TestAudio.tone("mp3", seconds: 1, in: directory)
        #expect(try EmbeddedChapters.read(file).isEmpty)
    }

    @Test func aFileFFmpegCannotOpenThrowsItsError() throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("not-audio.mp3")
        try Data("<html><body>Not found</body></html>\n".utf8).write(to: file)
        #expect(throws: PlaybackError.self) { try EmbeddedChapters.read(file) }
        #expect(throws: PlaybackError.self) { try EmbeddedChapters.read(directory.appendingPathComponent("missing.m4b")) }
    }
}

/// The cover picture inside an audio file, as ffmpeg writes one into an mp3 (ID3v2 APIC) and an m4b (covr).
@Suite(.timeLimit(.minutes(5))) struct EmbeddedPictureTests {
    @Test(arguments: [("mp3", ["-c:a", "libmp3lame", "-id3v2_version", "3"]), ("m4b", ["-c:a", "aac", "-f", "mp4"])])
    func thePictureComesOutByteForByte(ext: String, codec: [String]) throws {
        let directory = try TestAudio.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A picture made by ffmpeg itself, then put into the audio file unchanged.
        let picture = directory.appendingPathComponent("cover.png")
        try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=32x48:rate=1", "-frames:v", "1", picture.path])
        let audio = directory.appendingPathComponent("book.\(ext)")
        try ffmpeg(["-f", "lavfi", "-i", "sine=duration=1", "-i", picture.path, "-map", "0:a", "-map", "1:v"]
                   + codec + ["-c:v", "copy", "-disposition:v:0", "attached_pic", audio.path])
        let found = try EmbeddedPicture.read(audio)
        #expect(found == (try Data(contentsOf: picture)))
        // A file without one has none.
        let plain = try TestAudio.tone("mp3", seconds: 1, in: directory)
        #expect(try EmbeddedPicture.read(plain) == nil)
    }

    private func ffmpeg(_ arguments: [String]) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-loglevel", "error", "-y"] + arguments
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ffmpeg \(arguments)")
    }
}
