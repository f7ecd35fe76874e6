import ArgumentParser
import Foundation
import ShelfCore

/// What `shelf listen` takes. `shelf listen` plays in shelf's own process (Sources/shelf/main.swift runs the player
/// before this command is parsed); FFmpeg and SDL are opened with dlopen only then, so every other command starts
/// without loading them. This command's `run` hands over to the shelf-listen program only if it is reached at all.
package struct ListenArguments: ParsableArguments {
    package init() {}

    @OptionGroup package var global: GlobalOptions
    @Argument(help: "The title's id, or a unique part of it.") package var id: String

    @Option(name: .long, help: ArgumentHelp("Start here in the book (1:02:30, 45:00, 90s).", valueName: "time"))
    package var from: String?

    @Option(name: .long, help: ArgumentHelp("Start at this chapter (from 1).", valueName: "n"))
    package var chapter: Int?

    @Option(name: .long, help: ArgumentHelp("Playback speed, 0.5 to 4.0 (kept for the book).", valueName: "x"))
    package var speed: Double?

    @Flag(name: .customLong("no-ui"), help: "No screen: print a line per chapter and at the end.")
    package var noUI = false

    @Option(name: .customLong("for"), help: ArgumentHelp("Stop after this much listening (10m, 1h, 90s).", valueName: "time"))
    package var limit: String?

    @Option(name: .long, help: ArgumentHelp(
        "Set the sleep timer from the start: a length (30m, 1h), chapter (this one's end) or 2c (two chapters); "
            + "with --no-ui, listening ends when it runs out, after a fade.", valueName: "time|chapter|Nc"))
    package var sleep: String?

    @Option(name: .long, help: ArgumentHelp("What ← and → skip (default 30s); kept for the next time.", valueName: "time"))
    package var skip: String?

    @Option(name: .long, help: ArgumentHelp(
        "Go back after a pause: auto (10 s after 3 s, 20 s after 5 min, 30 s after 30 min), off, or a length; kept.",
        valueName: "auto|off|time"))
    package var rewind: String?

    @Option(name: .long, help: ArgumentHelp(
        "Start at this volume, 0 to 200 (%; over 100 boosts, never clipping); not kept, as in mpv.", valueName: "percent"))
    package var volume: Int?

    @Flag(name: .customLong("no-cover"), help: "Do not draw the cover beside the player (SHELF_COVER=off does so always).")
    package var noCover = false

    @Flag(name: .long, help: "Play the title's sample (or preview) from the library's catalog, without borrowing it; nothing is kept but that it was heard.")
    package var sample = false

    @Flag(name: .customLong("skip-silence"), inversion: .prefixedNo,
          help: "Cut pauses longer than 0.6 s to 0.3 s (key S); kept for the next time.")
    package var skipSilence: Bool?

    @Flag(name: .customLong("normalize"), inversion: .prefixedNo,
          help: "Even out the loudness towards -20 dBFS (quiet books louder); kept for the next time.")
    package var normalize: Bool?

    package func validate() throws {
        if let from, Clock.parse(from) == nil { throw ValidationError("--from takes a time like 1:02:30, 45:00 or 90s") }
        if let sleep, !Self.isSleepChoice(sleep) {
            throw ValidationError("--sleep takes a length like 30m or 1h, chapter, or a number of chapters like 2c")
        }
        for (name, value) in [("--for", limit), ("--skip", skip)] {
            if let value, (Clock.parse(value) ?? 0) <= 0 {
                throw ValidationError("\(name) takes a length like 10m, 1h or 90s")
            }
        }
        if let chapter, chapter < 1 { throw ValidationError("--chapter counts from 1") }
        if from != nil && chapter != nil { throw ValidationError("give --from or --chapter, not both") }
        if let speed, !(0.5...4.0).contains(speed) { throw ValidationError("--speed must be 0.5 to 4.0") }
        if let volume, !(0...200).contains(volume) { throw ValidationError("--volume must be 0 to 200") }
        if let rewind, Rewind(rewind) == nil {
            throw ValidationError("--rewind takes auto, off or a length like 20s")
        }
    }

    /// Whether `--sleep` sets a timer (`SleepTimer.parse`, which the player reads it with); empty sets none.
    static func isSleepChoice(_ text: String) -> Bool {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty, case .set = SleepTimer.parse(text) else { return false }
        return true
    }

    /// The help both commands show.
    package static let discussion = """
        Resumes at the position saved on this computer, or at a newer one another device (a phone with \
        the library's app) saved on the library's annotation service, and says which. The position is \
        saved every 2 seconds while playing, and on pause, seek, chapter change, quit, interrupt, \
        terminate, hang-up and when the terminal closes; it is sent to the library when online and \
        queued when not. A title still downloading plays as far as its parts have arrived; the rest \
        downloads in the background, the part it starts in and the next first; while another shelf \
        downloads the title, its parts are awaited from that one. A book that came as one audio file or \
        a zip of them (no table of contents of its own) takes its chapters from the files: m4b chapter atoms, ID3v2 chapters, \
        Vorbis and Opus chapter comments.

        COMFORTS
        After a pause the player goes back a little, as the listener has lost the thread: with --rewind \
        auto (the default) nothing after a pause under 3 s, 10 s under 5 minutes, 20 s under 30 minutes, \
        else 30 s; --rewind 15s goes back that much after any pause of 3 s or more; --rewind off never. \
        It counts every pause: space, MPRIS, the sleep timer, Ctrl-Z, a lost audio device, and the time \
        between sessions; never before the start of the book, and it says so ("Back 20 s after a \
        12-minute pause."). --skip-silence (key S) cuts pauses in the recording longer than 0.6 s to \
        0.3 s; positions stay in the book's time and the screen counts the time saved. --normalize evens \
        out the loudness towards -20 dBFS (quiet recordings up to four times louder). The three are kept \
        for the next time (--no-skip-silence, --no-normalize turn them off). Time left, on the screen and \
        in shelf position, is at the speed playing.

        KEYS
          space  play or pause          ← →  back or forward 30 s (--skip, kept)
          ↑ ↓    back or forward 5 min  , .  back or forward 5 s
          n p    next chapter, start of this (or the previous) chapter
          [ ]    speed −/+ 0.25×        { }  speed −/+ 0.05× (0.5× to 4×, pitch kept)
          t      table of contents (chapters not downloaded cannot be picked)
          g      go to a time: 1:23:00, 83:00, 45 (seconds) or 50%
          s      sleep timer: minutes (20), 1h, c (this chapter's end), 3c (three chapters), off
          +      five more minutes on the sleep timer (it runs only while playing, and fades out)
          b      bookmark, named        F    mark finished (asks y/N)
          B      bookmarks: every device's; enter jumps there, d deletes (here and on the library)
          j x    go to, or stay away from, the place another device offered
          9 0    volume −/+ 10%, to 200% (a limiter keeps it from clipping)
          m      mute or unmute         S    skip silence on or off (kept)
          Ctrl-Z suspend, paused (fg brings it back)
          ?      help                   q    quit

        COVER
        Every download keeps the title's cover beside its files (the catalog's image link, fetched \
        through the library's sign-in; PNG or JPEG, up to 20 MB); a book that came as one audio file \
        takes the picture inside the file, when it has one. MPRIS gives it to desktop media \
        widgets as mpris:artUrl, and in a window of 100 columns or more the player draws it beside its \
        text in coloured characters (Debian's chafa). Not on a dumb terminal, with NO_COLOR, \
        --no-cover or SHELF_COVER=off.

        SAMPLES
        --sample plays the sample or preview the library's catalog links for a title (an audio file \
        or a sample manifest), before borrowing it or joining a long hold: no loan is needed, and \
        nothing is kept but the fact it was heard, which shelf show says.

        YOUR PLACE ON EVERY DEVICE
        Positions merge, never clobber. While playing, the library is asked for your other devices' \
        positions every minute, on resume from pause and before each push. One saved after this \
        computer last pushed its own and more than 30 s from where you are is offered ("Another device \
        (NAME) was at 1:23:45, 2 hours ago — press j to go there, x to stay here"; with --no-ui a line \
        on standard output naming shelf position --take-other and --keep-here); the player never jumps \
        by itself, and this computer's position is not pushed over the other device's until you answer: \
        j, x, or a move of your own (a seek, a chapter, a bookmark, g). An offer not answered is offered \
        again at the next start; one saved after this computer's last position is where the next start \
        resumes. A place in a part the book no longer has (the title borrowed again with a new manifest) \
        is found by its chapter's name, or ignored with one line.

        Without a terminal, or with --no-ui, there is no screen: one line is printed at each chapter \
        and at the end. Audio goes to SDL's default device; set SDL_AUDIODRIVER to choose one \
        (pulseaudio, pipewire, alsa; disk writes raw samples to SDL_DISKAUDIOFILE). FFmpeg and SDL2 \
        are loaded when shelf listen starts, not by shelf's other commands.

        MPRIS
        While it plays, with or without the screen, shelf listen is the MPRIS player \
        org.mpris.MediaPlayer2.shelf on the session bus, so media keys, playerctl (playerctl \
        --player=shelf play-pause) and desktop widgets drive it: play, pause, next and previous \
        chapter, seek and set the position within the book (one track, the whole book), rate (the \
        speed, 0.5× to 4×), volume (0 to 2, where 1 is the recording's own level) and quit. Stop pauses and saves the position (the book keeps its \
        place) and reports Stopped until played again. The metadata gives the chapter as the title, \
        the book as the album, its authors as the artist, its length, and the cover if one was \
        downloaded. Without a session bus there is no MPRIS and no error; a bus that goes away while \
        playing leaves the player playing.
        """
}

extension Shelf {
    /// `shelf listen ID`: play an audiobook in the terminal from where the patron stopped.
    struct Listen: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "listen",
            abstract: "Play an audiobook in the terminal, from where you stopped.",
            discussion: ListenArguments.discussion)

        @OptionGroup var arguments: ListenArguments

        func run() throws {
            try withFailureHandling {
                // Everything after `listen`, as given: shelf-listen parses the same arguments.
                let all = CommandLine.arguments
                let rest = all.firstIndex(of: "listen").map { Array(all[($0 + 1)...]) } ?? Array(all.dropFirst())
                try SiblingProgram.player.exec(arguments: rest)
            }
        }
    }
}
