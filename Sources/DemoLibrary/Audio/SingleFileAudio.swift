import Foundation

/// How ffmpeg makes a single-file audiobook with its chapters inside: a tone per chapter, one after another, and
/// the chapters written the way each container keeps them.
struct SingleFileRecipe: Hashable, Sendable {
    var format: SingleFile.Format
    var title: String
    var chapters: [String]
    var chapterSeconds: Int

    /// Bumped whenever the ffmpeg arguments change, so old cached files are not reused.
    static let version = 1

    init(_ title: DemoTitle, _ file: SingleFile) {
        format = file.format
        self.title = title.title
        chapters = file.chapters
        chapterSeconds = max(1, file.chapterSeconds)
    }

    /// The cache file's name: the recipe's hash, so the same recipe reuses the same bytes.
    var fileName: String {
        var hasher = FNV1a64()
        hasher.combine("\(format.rawValue)\n\(title)\n\(chapters.joined(separator: "\n"))\n\(chapterSeconds)")
        return "book-\(String(hasher.value, radix: 16))-v\(Self.version).\(format.rawValue)"
    }

    /// ffmpeg's metadata file: the title, and one `[CHAPTER]` per chapter in milliseconds.
    var ffmetadata: String {
        var text = ";FFMETADATA1\ntitle=\(Self.escaped(title))\n"
        for (index, chapter) in chapters.enumerated() {
            text += "[CHAPTER]\nTIMEBASE=1/1000\nSTART=\(index * chapterSeconds * 1000)\n"
                + "END=\((index + 1) * chapterSeconds * 1000)\ntitle=\(Self.escaped(chapter))\n"
        }
        return text
    }

    /// The arguments that write the file to the path appended last; `metadata` is the ffmetadata file's path.
    func ffmpegArguments(metadata: String) -> [String] {
        // One tone per chapter, a step higher each time, so a listener hears where chapters change.
        let tones = chapters.indices.map { "sine=frequency=\(330 + 55 * ($0 % 6)):duration=\(chapterSeconds):sample_rate=22050" }
        var arguments = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y"]
        for tone in tones { arguments += ["-f", "lavfi", "-i", tone] }
        arguments += ["-i", metadata]
        let inputs = tones.indices.map { "[\($0):a]" }.joined()
        arguments += ["-filter_complex", "\(inputs)concat=n=\(tones.count):v=0:a=1[out]", "-map", "[out]", "-ac", "1"]
        arguments += ["-fflags", "+bitexact", "-flags:a", "+bitexact"]
        switch format {
        case .m4b:
            arguments += ["-map_metadata", "\(tones.count)", "-map_chapters", "\(tones.count)",
                          "-c:a", "aac", "-b:a", "32k", "-f", "ipod"]
        case .mp3, .zip:
            arguments += ["-map_metadata", "\(tones.count)", "-map_chapters", "\(tones.count)",
                          "-c:a", "libmp3lame", "-b:a", "32k", "-id3v2_version", "3", "-f", "mp3"]
        case .ogg:
            // FFmpeg's Ogg muxer writes no chapters for Vorbis: they go in as the comments players read.
            arguments += ["-map_metadata", "-1", "-map_chapters", "-1", "-metadata", "title=\(title)"]
            for (index, chapter) in chapters.enumerated() {
                let key = String(format: "CHAPTER%03d", index + 1)
                arguments += ["-metadata", "\(key)=\(Self.clock(index * chapterSeconds))", "-metadata", "\(key)NAME=\(chapter)"]
            }
            arguments += ["-c:a", "libvorbis", "-q:a", "0", "-f", "ogg"]
        }
        return arguments
    }

    private static func clock(_ seconds: Int) -> String {
        String(format: "%02d:%02d:%02d.000", seconds / 3600, seconds / 60 % 60, seconds % 60)
    }

    /// ffmetadata escapes `=`, `;`, `#`, `\` and newlines with a backslash.
    private static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "=;#\\\n".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}

extension DemoAudio {
    /// A single-file audiobook made to `recipe`, generated on first call and cached on disk like the parts.
    func singleFile(_ recipe: SingleFileRecipe) async throws -> AudioClip {
        if let made = singleFiles[recipe] { return try await made.value }
        let (directory, configured) = (directory, ffmpegPath)
        let task = Task(executorPreference: ThreadPoolTaskExecutor.current) {
            try await Self.cached(directory.appendingPathComponent(recipe.fileName), ffmpeg: configured) { tools, scratch in
                let metadata = directory.appendingPathComponent(".\(UUID().uuidString).ffmetadata")
                defer { try? FileManager.default.removeItem(at: metadata) }
                try Data(recipe.ffmetadata.utf8).write(to: metadata)
                _ = try await Self.run(tools.ffmpeg, recipe.ffmpegArguments(metadata: metadata.path) + [scratch.path])
            }
        }
        singleFiles[recipe] = task
        return try await task.value
    }
}
