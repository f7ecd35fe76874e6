import CFFmpeg

/// FFmpeg's AAC encoder fed from any decodable part: each part is decoded, resampled to the encoder's format and
/// queued in an audio FIFO, from which frames of exactly the encoder's frame size are encoded. The corresponding C
/// functions are `avcodec_send_frame`/`avcodec_receive_packet`, `swr_convert` and `av_audio_fifo_write`/`_read`.
final class FFmpegAACEncoder {
    private var codec: UnsafeMutablePointer<AVCodecContext>?
    private var fifo: OpaquePointer?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    let sampleRate: Int
    let channels: Int
    /// Samples handed to the encoder so far: the next frame's timestamp.
    private var sent: Int64 = 0
    /// Samples queued so far: where the next part starts.
    private(set) var queued: Int64 = 0

    /// An encoder at `sampleRate` (or the nearest rate AAC has) with `channels` (1 or 2).
    init(sampleRate wanted: Int, channels: Int, bitRate: Int) throws {
        try FFmpeg.load()
        guard let encoder = avcodec_find_encoder(AV_CODEC_ID_AAC) else {
            throw PlaybackError.ffmpeg(action: "find the AAC encoder", message: "FFmpeg was built without it")
        }
        var rates: [Int] = []
        if var rate = encoder.pointee.supported_samplerates {
            while rate.pointee != 0 { rates.append(Int(rate.pointee)); rate += 1 }
        }
        sampleRate = rates.isEmpty || rates.contains(wanted) ? wanted
            : rates.min { abs($0 - wanted) < abs($1 - wanted) } ?? wanted
        self.channels = channels
        codec = avcodec_alloc_context3(encoder)
        guard let codec else { throw PlaybackError.ffmpeg(action: "set up the AAC encoder", message: "out of memory") }
        codec.pointee.sample_fmt = encoder.pointee.sample_fmts?.pointee ?? AV_SAMPLE_FMT_FLTP
        codec.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&codec.pointee.ch_layout, Int32(channels))
        codec.pointee.bit_rate = Int64(bitRate)
        codec.pointee.time_base = AVRational(num: 1, den: Int32(sampleRate))
        // An m4b keeps the codec's setup once in its header, not in every packet.
        codec.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        try FFmpeg.check(avcodec_open2(codec, encoder, nil), "open the AAC encoder")
        fifo = av_audio_fifo_alloc(codec.pointee.sample_fmt, Int32(channels), max(codec.pointee.frame_size, 1024) * 4)
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard fifo != nil, frame != nil, packet != nil else {
            throw PlaybackError.ffmpeg(action: "set up the AAC encoder", message: FFmpeg.message(CFFmpeg_ENOMEM()))
        }
    }

    deinit {
        av_packet_free(&packet)
        av_frame_free(&frame)
        if let fifo { av_audio_fifo_free(fifo) }
        avcodec_free_context(&codec)
    }

    /// The encoder's time base: one tick per sample.
    var timeBase: AVRational { AVRational(num: 1, den: Int32(sampleRate)) }

    /// Fills a stream's codec parameters with what this encoder makes.
    func describe(_ parameters: UnsafeMutablePointer<AVCodecParameters>) throws {
        try FFmpeg.check(avcodec_parameters_from_context(parameters, codec), "describe the AAC stream")
    }

    /// Seconds queued so far.
    var seconds: Double { Double(queued) / Double(sampleRate) }

    /// Decodes every packet of `input`, resamples it and encodes what fills whole frames; `tick` hears the seconds
    /// queued so far. Returns where the part starts in the book, in seconds.
    func encode(_ input: FFmpegExportInput, into writer: FFmpegM4BWriter, tick: (Double) throws -> Void) throws -> Double {
        let start = seconds
        let part = try PartDecoder(input, into: self)
        var received = av_frame_alloc()
        var read = av_packet_alloc()
        defer {
            av_frame_free(&received)
            av_packet_free(&read)
        }
        guard let received, let read else {
            throw PlaybackError.ffmpeg(action: "decode \(input.path)", message: FFmpeg.message(CFFmpeg_ENOMEM()))
        }
        var ended = false
        while !ended {
            if try input.read(into: read) {
                // A damaged packet is skipped, as the player skips it; reading errors and a short part are not.
                _ = avcodec_send_packet(part.codec, read)
                av_packet_unref(read)
            } else {
                _ = avcodec_send_packet(part.codec, nil)
                ended = true
            }
            while true {
                let result = avcodec_receive_frame(part.codec, received)
                if result == FFmpeg.eagain || result == FFmpeg.eof { break }
                guard result >= 0 else { break }
                try part.queue(received)
                av_frame_unref(received)
                try drain(into: writer, all: false)
                try tick(seconds)
            }
        }
        try part.flush()
        try input.checkComplete(endedAt: seconds - start)
        return start
    }

    /// Encodes what is left in the FIFO (a last, shorter frame) and what the encoder still holds.
    func finish(into writer: FFmpegM4BWriter) throws {
        try drain(into: writer, all: true)
        try FFmpeg.check(avcodec_send_frame(codec, nil), "flush the AAC encoder")
        try receivePackets(into: writer)
    }

    /// Queues resampled samples, given as one pointer per plane.
    fileprivate func enqueue(_ planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, count: Int32) throws {
        guard count > 0 else { return }
        let written = planes.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: channels) {
            av_audio_fifo_write(fifo, $0, count)
        }
        try FFmpeg.check(written, "queue audio for the encoder")
        queued += Int64(written)
    }

    fileprivate var sampleFormat: AVSampleFormat { codec!.pointee.sample_fmt }
    fileprivate var layout: UnsafeMutablePointer<AVChannelLayout> { codec!.pointer(to: \.ch_layout)! }

    private func drain(into writer: FFmpegM4BWriter, all: Bool) throws {
        guard let codec, let frame else { return }
        let size = codec.pointee.frame_size > 0 ? codec.pointee.frame_size : 1024
        while av_audio_fifo_size(fifo) >= size || (all && av_audio_fifo_size(fifo) > 0) {
            let count = min(size, av_audio_fifo_size(fifo))
            frame.pointee.nb_samples = count
            frame.pointee.format = codec.pointee.sample_fmt.rawValue
            frame.pointee.sample_rate = codec.pointee.sample_rate
            try FFmpeg.check(av_channel_layout_copy(&frame.pointee.ch_layout, &codec.pointee.ch_layout), "copy the channel layout")
            try FFmpeg.check(av_frame_get_buffer(frame, 0), "allocate a frame")
            let read = frame.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: channels) {
                av_audio_fifo_read(fifo, $0, count)
            }
            try FFmpeg.check(read, "read queued audio")
            frame.pointee.pts = sent
            sent += Int64(count)
            let result = avcodec_send_frame(codec, frame)
            av_frame_unref(frame)
            try FFmpeg.check(result, "encode audio")
            try receivePackets(into: writer)
        }
    }

    private func receivePackets(into writer: FFmpegM4BWriter) throws {
        guard let packet else { return }
        while true {
            let result = avcodec_receive_packet(codec, packet)
            if result == FFmpeg.eagain || result == FFmpeg.eof { return }
            try FFmpeg.check(result, "encode audio")
            defer { av_packet_unref(packet) }
            try writer.writeEncoded(packet, timeBase: timeBase)
        }
    }
}

/// One part's decoder and its resampler to the encoder's format.
private final class PartDecoder {
    var codec: UnsafeMutablePointer<AVCodecContext>?
    private var resampler: OpaquePointer?
    private unowned let encoder: FFmpegAACEncoder
    private let path: String

    init(_ input: FFmpegExportInput, into encoder: FFmpegAACEncoder) throws {
        self.encoder = encoder
        path = input.path
        guard let decoder = avcodec_find_decoder(input.parameters.pointee.codec_id) else {
            throw PlaybackError.noAudioStream(path: input.path)
        }
        codec = avcodec_alloc_context3(decoder)
        try FFmpeg.check(avcodec_parameters_to_context(codec, input.parameters), "set up the decoder for \(path)")
        codec?.pointee.pkt_timebase = input.timeBase
        try FFmpeg.check(avcodec_open2(codec, decoder, nil), "open the decoder for \(path)")
    }

    deinit {
        swr_free(&resampler)
        avcodec_free_context(&codec)
    }

    /// Resamples a decoded frame and queues it for the encoder.
    func queue(_ frame: UnsafeMutablePointer<AVFrame>) throws {
        if resampler == nil { try makeResampler(for: frame) }
        let channels = Int(frame.pointee.ch_layout.nb_channels)
        try convert(capacity: swr_get_out_samples(resampler, frame.pointee.nb_samples)) { out, capacity in
            try frame.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: channels) { input in
                try FFmpeg.check(swr_convert(resampler, out, capacity, input, frame.pointee.nb_samples), "resample \(path)")
            }
        }
    }

    /// Queues what the resampler still holds, so no sample of this part leaks into the next.
    func flush() throws {
        guard resampler != nil else { return }
        try convert(capacity: swr_get_out_samples(resampler, 0) + 32) { out, capacity in
            try FFmpeg.check(swr_convert(resampler, out, capacity, nil, 0), "resample \(path)")
        }
    }

    private func convert(
        capacity: Int32, _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, Int32) throws -> Int32
    ) throws {
        guard capacity > 0 else { return }
        var planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?
        try FFmpeg.check(
            av_samples_alloc_array_and_samples(&planes, nil, Int32(encoder.channels), capacity, encoder.sampleFormat, 0),
            "allocate samples")
        defer {
            av_freep(planes)
            av_freep(&planes)
        }
        guard let planes else { return }
        let produced = try body(planes, capacity)
        try encoder.enqueue(planes, count: produced)
    }

    private func makeResampler(for frame: UnsafeMutablePointer<AVFrame>) throws {
        var inLayout = try FFmpeg.channelLayout(of: frame)
        defer { av_channel_layout_uninit(&inLayout) }
        try FFmpeg.check(
            swr_alloc_set_opts2(
                &resampler, encoder.layout, encoder.sampleFormat, Int32(encoder.sampleRate),
                &inLayout, AVSampleFormat(frame.pointee.format), frame.pointee.sample_rate, 0, nil),
            "set up the resampler for \(path)")
        try FFmpeg.check(swr_init(resampler), "start the resampler for \(path)")
    }
}
