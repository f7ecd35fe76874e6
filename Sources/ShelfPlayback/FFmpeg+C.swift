import CFFmpeg
import CPlaybackLoader

/// The one error path for FFmpeg: return codes become `PlaybackError.ffmpeg` with `av_strerror`'s message.
enum FFmpeg {
    static let eagain = CFFmpeg_EAGAIN()
    static let eof = CFFmpeg_EOF()
    static let noTimestamp = CFFmpeg_NOPTS()

    /// Corrupt frames are counted and skipped, so FFmpeg's own logging would only repeat them on stderr.
    static let quietLogging: Void = av_log_set_level(AV_LOG_FATAL)

    /// Opens FFmpeg's libraries (once: they are opened with dlopen, not linked; see CPlaybackLoader) and quiets
    /// its logging. Every way into FFmpeg calls it first; it waits for a load another thread started.
    static func load() throws {
        if let reason = CPlayback_load_ffmpeg() {
            throw PlaybackError.libraryMissing(
                library: "FFmpeg (\(String(cString: CPlayback_ffmpeg_libraries())))", reason: String(cString: reason))
        }
        _ = quietLogging
    }

    @discardableResult
    static func check(_ code: Int32, _ action: @autoclosure () -> String) throws -> Int32 {
        guard code < 0 else { return code }
        throw PlaybackError.ffmpeg(action: action(), message: message(code))
    }

    /// The frame's channel layout, or the default one for its channel count when the decoder left the order
    /// unspecified; the caller uninitialises it (`av_channel_layout_uninit`).
    static func channelLayout(of frame: UnsafeMutablePointer<AVFrame>) throws -> AVChannelLayout {
        var layout = AVChannelLayout()
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&layout, frame.pointee.ch_layout.nb_channels)
        } else {
            try check(av_channel_layout_copy(&layout, &frame.pointee.ch_layout), "copy the channel layout")
        }
        return layout
    }

    static func message(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// The chapters a file's container declares (m4b chapter atoms, ID3v2 CHAP frames, Vorbis/Opus CHAPTERxx comments),
/// as libavformat exposes them in `AVFormatContext.chapters`. The corresponding C functions are
/// `avformat_open_input` and `avformat_find_stream_info`.
enum FFmpegChapters {
    /// Title (nil when the chapter has none), start and end in seconds, in the order the file lists them; an end the
    /// file does not give is nil.
    static func read(path: String) throws -> (chapters: [(title: String?, start: Double, end: Double?)], duration: Double?) {
        try FFmpeg.load()
        var format: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_open_input(&format, path, nil, nil), "open \(path)")
        defer { avformat_close_input(&format) }
        try FFmpeg.check(avformat_find_stream_info(format, nil), "read the streams of \(path)")
        guard let context = format?.pointee else { return ([], nil) }
        let duration = context.duration != FFmpeg.noTimestamp && context.duration > 0
            ? Double(context.duration) / 1_000_000 : nil
        var chapters: [(title: String?, start: Double, end: Double?)] = []
        for index in 0..<Int(context.nb_chapters) {
            guard let chapter = context.chapters[index]?.pointee else { continue }
            let base = av_q2d(chapter.time_base)
            let title = av_dict_get(chapter.metadata, "title", nil, 0).flatMap { entry in
                entry.pointee.value.map { String(cString: $0) }
            }
            let end = chapter.end != FFmpeg.noTimestamp && chapter.end > chapter.start ? Double(chapter.end) * base : nil
            chapters.append((title, Double(chapter.start) * base, end))
        }
        return (chapters, duration)
    }
}

/// The picture a file carries as its cover (an ID3v2 APIC frame, an m4b's `covr` atom, a FLAC or Vorbis picture), as
/// libavformat exposes it: a stream marked `AV_DISPOSITION_ATTACHED_PIC` whose one packet is the image.
enum FFmpegPicture {
    static func read(path: String) throws -> [UInt8]? {
        try FFmpeg.load()
        var format: UnsafeMutablePointer<AVFormatContext>?
        try FFmpeg.check(avformat_open_input(&format, path, nil, nil), "open \(path)")
        defer { avformat_close_input(&format) }
        try FFmpeg.check(avformat_find_stream_info(format, nil), "read the streams of \(path)")
        guard let context = format?.pointee else { return nil }
        for index in 0..<Int(context.nb_streams) {
            guard let stream = context.streams[index]?.pointee,
                stream.disposition & Int32(AV_DISPOSITION_ATTACHED_PIC) != 0,
                let data = stream.attached_pic.data, stream.attached_pic.size > 0
            else { continue }
            return Array(UnsafeBufferPointer(start: data, count: Int(stream.attached_pic.size)))
        }
        return nil
    }
}

/// An opened file's audio stream, its decoder and resampler. The corresponding C functions are
/// `avformat_open_input`, `avcodec_send_packet`/`avcodec_receive_frame` and `swr_convert`.
final class FFmpegAudioInput {
    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var streamIndex: Int32 = -1
    private var timeBase = AVRational(num: 1, den: 1)
    private var inputEnded = false
    private var resamplerFlushed = false
    private var nextTime = 0.0
    private var trimBefore: Double?
    private(set) var duration: Double?
    private(set) var skippedFrames = 0

    init(path: String) throws {
        try FFmpeg.load()
        try FFmpeg.check(avformat_open_input(&format, path, nil, nil), "open \(path)")
        try FFmpeg.check(avformat_find_stream_info(format, nil), "read the streams of \(path)")
        var decoder: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard index >= 0, let decoder, let stream = format?.pointee.streams[Int(index)] else {
            throw PlaybackError.noAudioStream(path: path)
        }
        streamIndex = index
        timeBase = stream.pointee.time_base
        codec = avcodec_alloc_context3(decoder)
        try FFmpeg.check(avcodec_parameters_to_context(codec, stream.pointee.codecpar), "set up the decoder for \(path)")
        codec?.pointee.pkt_timebase = stream.pointee.time_base
        try FFmpeg.check(avcodec_open2(codec, decoder, nil), "open the decoder for \(path)")
        packet = av_packet_alloc()
        frame = av_frame_alloc()
        if stream.pointee.duration != FFmpeg.noTimestamp {
            duration = Double(stream.pointee.duration) * av_q2d(timeBase)
        } else if let total = format?.pointee.duration, total != FFmpeg.noTimestamp {
            duration = Double(total) / 1_000_000
        }
    }

    deinit {
        swr_free(&resampler)
        av_frame_free(&frame)
        av_packet_free(&packet)
        avcodec_free_context(&codec)
        avformat_close_input(&format)
    }

    /// The next run of resampled samples and the source time of its first frame, or nil at the end.
    func next() throws -> (time: Double, samples: [Int16])? {
        guard let frame, let packet else { return nil }
        while true {
            let received = avcodec_receive_frame(codec, frame)
            if received >= 0 {
                let chunk = try convert(frame)
                av_frame_unref(frame)
                if let chunk, let trimmed = trim(chunk) { return trimmed }
                continue
            }
            if received == FFmpeg.eof {
                guard !resamplerFlushed else { return nil }
                resamplerFlushed = true
                if let tail = try flushResampler(), let trimmed = trim(tail) { return trimmed }
                return nil
            }
            if received != FFmpeg.eagain {
                skippedFrames += 1
                continue
            }
            if inputEnded { return nil }
            // A read error past the header is a truncated or damaged file: end it like EOF, draining the decoder.
            if av_read_frame(format, packet) < 0 {
                inputEnded = true
                avcodec_send_packet(codec, nil)
                continue
            }
            if packet.pointee.stream_index == streamIndex {
                let sent = avcodec_send_packet(codec, packet)
                if sent < 0 && sent != FFmpeg.eagain { skippedFrames += 1 }
            }
            av_packet_unref(packet)
        }
    }

    /// Moves to `seconds`; the samples before it are dropped so the next run starts there.
    func seek(to seconds: Double) throws {
        let target = Int64((seconds / av_q2d(timeBase)).rounded(.down))
        try FFmpeg.check(av_seek_frame(format, streamIndex, target, AVSEEK_FLAG_BACKWARD), "seek to \(seconds) s")
        avcodec_flush_buffers(codec)
        swr_free(&resampler)
        inputEnded = false
        resamplerFlushed = false
        nextTime = seconds
        trimBefore = seconds
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws -> (time: Double, samples: [Int16])? {
        if resampler == nil { try makeResampler(for: frame) }
        let rate = Double(PCM.sampleRate)
        let timestamp = frame.pointee.best_effort_timestamp
        let delay = Double(swr_get_delay(resampler, Int64(PCM.sampleRate))) / rate
        let time = timestamp != FFmpeg.noTimestamp ? Double(timestamp) * av_q2d(timeBase) - delay : nextTime
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        let produced = try resample(capacity: swr_get_out_samples(resampler, frame.pointee.nb_samples)) { out, capacity in
            try frame.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: channels) { input in
                try FFmpeg.check(swr_convert(resampler, out, capacity, input, frame.pointee.nb_samples), "resample audio")
            }
        }
        nextTime = time + Double(produced.count / PCM.channels) / rate
        return produced.isEmpty ? nil : (time, produced)
    }

    private func flushResampler() throws -> (time: Double, samples: [Int16])? {
        guard resampler != nil else { return nil }
        let produced = try resample(capacity: Int32(swr_get_delay(resampler, Int64(PCM.sampleRate))) + 32) { out, capacity in
            try FFmpeg.check(swr_convert(resampler, out, capacity, nil, 0), "flush the resampler")
        }
        return produced.isEmpty ? nil : (nextTime, produced)
    }

    private func resample(
        capacity: Int32,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, Int32) throws -> Int32
    ) throws -> [Int16] {
        guard capacity > 0 else { return [] }
        var samples = [Int16](repeating: 0, count: Int(capacity) * PCM.channels)
        let frames = try samples.withUnsafeMutableBytes { raw in
            var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return try body(&out, capacity)
        }
        samples.removeLast(samples.count - Int(frames) * PCM.channels)
        return samples
    }

    private func makeResampler(for frame: UnsafeMutablePointer<AVFrame>) throws {
        var inLayout = try FFmpeg.channelLayout(of: frame)
        defer { av_channel_layout_uninit(&inLayout) }
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(PCM.channels))
        try FFmpeg.check(
            swr_alloc_set_opts2(
                &resampler, &outLayout, AV_SAMPLE_FMT_S16, Int32(PCM.sampleRate),
                &inLayout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil),
            "set up the resampler")
        try FFmpeg.check(swr_init(resampler), "start the resampler")
    }

    /// Drops the samples before a seek target (a seek lands on the packet before it).
    private func trim(_ chunk: (time: Double, samples: [Int16])) -> (time: Double, samples: [Int16])? {
        guard let target = trimBefore else { return chunk }
        let frames = chunk.samples.count / PCM.channels
        let skip = Int(((target - chunk.time) * Double(PCM.sampleRate)).rounded())
        if skip >= frames { return nil }
        trimBefore = nil
        guard skip > 0 else { return chunk }
        return (target, Array(chunk.samples[(skip * PCM.channels)...]))
    }
}
