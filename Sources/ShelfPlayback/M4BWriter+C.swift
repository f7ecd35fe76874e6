import CFFmpeg

/// What a part file holds, as the exporter decides between copying and encoding.
struct ExportPart: Sendable, Equatable {
    let path: String
    /// Whether the audio is AAC, which an m4b holds as it is.
    let isAAC: Bool
    let sampleRate: Int
    let channels: Int
    /// The codec's setup bytes (AAC's AudioSpecificConfig): parts remuxed into one stream must agree on them.
    let extradata: [UInt8]
    /// Seconds, as the file's own header or index states them; nil when FFmpeg could only guess from the bitrate.
    let declaredDuration: Double?
    /// Seconds, as far as known (a guess included), for progress.
    let duration: Double
}

/// One part file opened for export: its audio stream, what that stream holds, and its packets as stored.
/// The corresponding C functions are `avformat_open_input` and `av_read_frame`.
final class FFmpegExportInput {
    /// The demuxer; the encoder reads packets through it too.
    private(set) var format: UnsafeMutablePointer<AVFormatContext>?
    let streamIndex: Int32
    let part: ExportPart
    var path: String { part.path }

    init(path: String) throws {
        try FFmpeg.load()
        var format: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_open_input(&format, path, nil, nil), "open \(path)")
        let found = avformat_find_stream_info(format, nil)
        let index = found < 0 ? found : av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
        guard index >= 0, let context = format, let stream = context.pointee.streams[Int(index)] else {
            // Closed here: a class whose initializer throws early never runs its deinit.
            avformat_close_input(&format)
            try FFmpeg.check(found, "read the streams of \(path)")
            throw PlaybackError.noAudioStream(path: path)
        }
        let parameters = stream.pointee.codecpar.pointee
        var known: Double?
        if stream.pointee.duration != FFmpeg.noTimestamp {
            known = Double(stream.pointee.duration) * av_q2d(stream.pointee.time_base)
        } else if context.pointee.duration != FFmpeg.noTimestamp {
            known = Double(context.pointee.duration) / Double(AV_TIME_BASE)
        }
        part = ExportPart(
            path: path, isAAC: parameters.codec_id == AV_CODEC_ID_AAC, sampleRate: Int(parameters.sample_rate),
            channels: Int(parameters.ch_layout.nb_channels),
            extradata: parameters.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(parameters.extradata_size))) } ?? [],
            declaredDuration: context.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE ? nil : known,
            duration: known ?? 0)
        streamIndex = index
        self.format = context
    }

    deinit { avformat_close_input(&format) }

    /// The audio stream's time base.
    var timeBase: AVRational { format!.pointee.streams[Int(streamIndex)]!.pointee.time_base }

    /// The audio stream's codec parameters.
    var parameters: UnsafeMutablePointer<AVCodecParameters> { format!.pointee.streams[Int(streamIndex)]!.pointee.codecpar }

    /// Reads the next packet of the audio stream; false at the end of the file. A read error other than the end
    /// throws: an export never ends a part early and quietly.
    func read(into packet: UnsafeMutablePointer<AVPacket>) throws -> Bool {
        while true {
            let result = av_read_frame(format, packet)
            if result == FFmpeg.eof { return false }
            try FFmpeg.check(result, "read \(path)")
            if packet.pointee.stream_index == streamIndex { return true }
            av_packet_unref(packet)
        }
    }

    /// Throws when the audio read ended well before the length the file declares: a part cut short.
    func checkComplete(endedAt seconds: Double) throws {
        guard let declared = part.declaredDuration, seconds < declared - 0.5 - declared * 0.01 else { return }
        throw PlaybackError.cutShort(path: path, endsAt: seconds, declared: declared)
    }
}

/// The m4b being written: FFmpeg's `ipod` muxer with one audio stream, the book's tags, an optional cover as an
/// attached picture, and the chapters added at the end. The corresponding C functions are
/// `avformat_alloc_output_context2`, `avformat_write_header`, `av_write_frame` and `av_write_trailer`.
final class FFmpegM4BWriter {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    private var audio: UnsafeMutablePointer<AVStream>?
    private var cover: (stream: UnsafeMutablePointer<AVStream>, packet: UnsafeMutablePointer<AVPacket>?)?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let path: String
    /// Where the next part's audio starts, in the audio stream's time base.
    private var end: Int64 = 0
    private var partsWritten = 0

    init(path: String, tags: [(String, String)]) throws {
        try FFmpeg.load()
        self.path = path
        try FFmpeg.check(avformat_alloc_output_context2(&context, nil, "ipod", path), "set up an m4b for \(path)")
        for (key, value) in tags {
            try FFmpeg.check(av_dict_set(&context!.pointee.metadata, key, value, 0), "tag the m4b with its \(key)")
        }
        packet = av_packet_alloc()
    }

    deinit {
        if var cover { av_packet_free(&cover.packet) }
        av_packet_free(&packet)
        if context?.pointee.pb != nil { avio_closep(&context!.pointee.pb) }
        avformat_free_context(context)
    }

    /// Seconds of audio written so far.
    var seconds: Double { audio.map { Double(end) * av_q2d($0.pointee.time_base) } ?? 0 }

    /// Adds the audio stream as `input` stores it, for packets copied from every part.
    func addAudio(copying input: FFmpegExportInput) throws {
        let stream = try newStream()
        try FFmpeg.check(avcodec_parameters_copy(stream.pointee.codecpar, input.parameters), "copy the audio's parameters")
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = AVRational(num: 1, den: Int32(input.part.sampleRate))
        audio = stream
    }

    /// Adds the audio stream `encoder` makes.
    func addAudio(encodedBy encoder: FFmpegAACEncoder) throws {
        let stream = try newStream()
        try encoder.describe(stream.pointee.codecpar)
        stream.pointee.time_base = encoder.timeBase
        audio = stream
    }

    /// Adds the image at `path` (PNG or JPEG) as the cover; false, and no cover, when it is neither or unreadable.
    func addCover(path: String) -> Bool {
        var input: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&input, path, nil, nil) >= 0 else { return false }
        defer { avformat_close_input(&input) }
        // The picture's size is known only once a frame is probed; the muxer refuses a cover without it.
        guard avformat_find_stream_info(input, nil) >= 0 else { return false }
        let index = av_find_best_stream(input, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0, let source = input?.pointee.streams[Int(index)],
              [AV_CODEC_ID_PNG, AV_CODEC_ID_MJPEG].contains(source.pointee.codecpar.pointee.codec_id)
        else { return false }
        var picture = av_packet_alloc()
        guard let picture, av_read_frame(input, picture) >= 0, picture.pointee.stream_index == index,
              let stream = try? newStream(),
              avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar) >= 0
        else {
            av_packet_free(&picture)
            return false
        }
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.disposition = AV_DISPOSITION_ATTACHED_PIC
        stream.pointee.time_base = AVRational(num: 1, den: 90_000)
        cover = (stream, picture)
        return true
    }

    /// Creates the file and writes the header (the index goes to the front at the end: `faststart`), then the cover.
    func start() throws {
        try FFmpeg.check(avio_open(&context!.pointee.pb, path, AVIO_FLAG_WRITE), "create \(path)")
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "movflags", "+faststart", 0)
        try FFmpeg.check(avformat_write_header(context, &options), "write the m4b header to \(path)")
        if let (stream, picture) = cover, let picture {
            picture.pointee.stream_index = stream.pointee.index
            picture.pointee.pts = 0
            picture.pointee.dts = 0
            picture.pointee.duration = 0
            picture.pointee.pos = -1
            try FFmpeg.check(av_write_frame(context, picture), "write the cover to \(path)")
        }
    }

    /// Copies the audio packets of `input` after what is written, as they are; returns where the part's own time
    /// zero falls in the book, in seconds. `tick` hears the seconds written so far.
    func remux(_ input: FFmpegExportInput, tick: (Double) throws -> Void) throws -> Double {
        guard let audio, let packet else { return 0 }
        let outBase = audio.pointee.time_base
        // The first part keeps its timestamps (AAC's priming frame before zero becomes the file's edit list); each
        // later part starts where the one before ended.
        var shift: Int64?
        var partEnd = end
        while try input.read(into: packet) {
            defer { av_packet_unref(packet) }
            av_packet_rescale_ts(packet, input.timeBase, outBase)
            let timestamp = packet.pointee.dts != FFmpeg.noTimestamp ? packet.pointee.dts : packet.pointee.pts
            guard timestamp != FFmpeg.noTimestamp else { continue }
            let offset = shift ?? (partsWritten == 0 ? 0 : end - timestamp)
            shift = offset
            packet.pointee.dts = timestamp + offset
            if packet.pointee.pts != FFmpeg.noTimestamp { packet.pointee.pts += offset }
            partEnd = max(partEnd, timestamp + offset + max(packet.pointee.duration, 0))
            packet.pointee.stream_index = audio.pointee.index
            packet.pointee.pos = -1
            try FFmpeg.check(av_write_frame(context, packet), "write audio to \(path)")
            try tick(Double(partEnd) * av_q2d(outBase))
        }
        let start = shift ?? end
        try input.checkComplete(endedAt: Double(partEnd - start) * av_q2d(outBase))
        end = partEnd
        partsWritten += 1
        return Double(start) * av_q2d(outBase)
    }

    /// Writes a packet the encoder made, its timestamps in `timeBase`.
    func writeEncoded(_ encoded: UnsafeMutablePointer<AVPacket>, timeBase: AVRational) throws {
        guard let audio else { return }
        av_packet_rescale_ts(encoded, timeBase, audio.pointee.time_base)
        encoded.pointee.stream_index = audio.pointee.index
        if encoded.pointee.dts != FFmpeg.noTimestamp {
            end = max(end, encoded.pointee.dts + max(encoded.pointee.duration, 0))
        }
        try FFmpeg.check(av_write_frame(context, encoded), "write audio to \(path)")
    }

    /// Adds the chapters (title and start in seconds, in order), writes the index and closes the file.
    func finish(chapters: [(title: String, start: Double)], length: Double) throws {
        let base = AVRational(num: 1, den: 1000)
        for (number, chapter) in chapters.enumerated() {
            let next = number + 1 < chapters.count ? chapters[number + 1].start : length
            try FFmpeg.check(
                CFFmpeg_add_chapter(
                    context, Int64(number), base, Int64((chapter.start * 1000).rounded()), Int64((next * 1000).rounded()),
                    chapter.title),
                "add chapter \(number + 1)")
        }
        try FFmpeg.check(av_write_trailer(context), "finish \(path)")
        try FFmpeg.check(avio_closep(&context!.pointee.pb), "close \(path)")
    }

    private func newStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let stream = avformat_new_stream(context, nil) else {
            throw PlaybackError.ffmpeg(action: "add a stream to \(path)", message: FFmpeg.message(CFFmpeg_ENOMEM()))
        }
        return stream
    }
}
