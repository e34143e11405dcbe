import CFFmpeg
import VaultCore

/// Decodes the pictures of a probed video's stream, from a point it seeks to. One decoding
/// thread: an import already decodes one video a core, and each thread would hold pictures
/// of its own. The decoder refuses pictures much larger than the header said
/// (`max_pixels`), so a stream whose parameter sets lie about its size cannot make it
/// allocate past what the header was allowed.
final class VideoFrames {
  let probe: VideoProbe
  private var decoder: UnsafeMutablePointer<AVCodecContext>?
  private var packet: UnsafeMutablePointer<AVPacket>?
  private var frame: UnsafeMutablePointer<AVFrame>?
  /// Whether the demuxer has no more packets since the last seek (the decoder is drained).
  private var drained = false
  /// The pictures handed out so far (what choosing a thumbnail cost).
  private(set) var picturesDecoded = 0

  init(_ probe: VideoProbe, limits: Thumbnailer) throws {
    self.probe = probe
    let parameters = probe.stream.pointee.codecpar!
    guard let codec = avcodec_find_decoder(parameters.pointee.codec_id),
      let decoder = avcodec_alloc_context3(codec)
    else { throw VaultError.videoUnreadable(path: probe.path, reason: "its codec cannot be decoded") }
    self.decoder = decoder
    packet = av_packet_alloc()
    frame = av_frame_alloc()
    guard packet != nil, frame != nil, avcodec_parameters_to_context(decoder, parameters) >= 0 else {
      throw VaultError.videoUnreadable(path: probe.path, reason: "out of memory")
    }
    decoder.pointee.thread_count = 1
    decoder.pointee.max_pixels = Int64(min(limits.pixelLimit, probe.width * probe.height * 2))
    decoder.pointee.pkt_timebase = probe.stream.pointee.time_base
    let status = avcodec_open2(decoder, codec, nil)
    guard status >= 0 else {
      throw VideoProbe.failure(status, input: probe.input, doing: "its decoder cannot be opened")
    }
  }

  deinit {
    av_frame_free(&frame)
    av_packet_free(&packet)
    avcodec_free_context(&decoder)
  }

  /// Seeks to the keyframe at or before `microseconds` from the start, so that the next
  /// pictures decoded lead up to it, or with `backward` false to the first keyframe at or
  /// after it. False when the container cannot seek there (or has no keyframe after it).
  @discardableResult
  func seek(toMicroseconds microseconds: Int64, backward: Bool = true) -> Bool {
    let base = probe.stream.pointee.time_base
    let start =
      probe.stream.pointee.start_time == vault_av_nopts_value() ? 0 : probe.stream.pointee.start_time
    let target = start + av_rescale_q(microseconds, AVRational(num: 1, den: AV_TIME_BASE), base)
    let moved =
      av_seek_frame(probe.format, probe.stream.pointee.index, target, backward ? AVSEEK_FLAG_BACKWARD : 0)
      >= 0
    avcodec_flush_buffers(decoder)
    drained = false
    return moved
  }

  /// The time of `picture` in microseconds from the stream's start, or nil when unknown.
  func microseconds(of picture: UnsafePointer<AVFrame>) -> Int64? {
    let stamp = picture.pointee.best_effort_timestamp
    guard stamp != vault_av_nopts_value() else { return nil }
    let start =
      probe.stream.pointee.start_time == vault_av_nopts_value() ? 0 : probe.stream.pointee.start_time
    return av_rescale_q(stamp - start, probe.stream.pointee.time_base, AVRational(num: 1, den: AV_TIME_BASE))
  }

  /// The next decoded picture, valid until the next call; nil at the end of the stream.
  /// Throws when the time budget is spent or the stream is damaged before its end.
  func next() throws -> UnsafeMutablePointer<AVFrame>? {
    while true {
      let received = avcodec_receive_frame(decoder, frame)
      if received >= 0 {
        picturesDecoded += 1
        return frame
      }
      if received == vault_av_error_eof() { return nil }
      guard received == vault_av_error_again() else {
        throw VideoProbe.failure(received, input: probe.input, doing: "its pictures cannot be decoded")
      }
      if probe.input.isPastDeadline() {
        throw VideoProbe.failure(vault_av_error_exit(), input: probe.input, doing: "")
      }
      try feed()
    }
  }

  /// Hands the decoder the stream's next packet, or tells it the stream ended.
  private func feed() throws {
    guard !drained else { return }
    while true {
      let read = av_read_frame(probe.format, packet)
      if read < 0 {
        if probe.input.timedOut || read == vault_av_error_exit() {
          throw VideoProbe.failure(read, input: probe.input, doing: "")
        }
        // The end, or a file cut short: the pictures decoded so far are what there is.
        drained = true
        avcodec_send_packet(decoder, nil)
        return
      }
      defer { av_packet_unref(packet) }
      guard packet!.pointee.stream_index == probe.stream.pointee.index else { continue }
      // A damaged packet is skipped, as players do: its error is not the stream's end.
      _ = avcodec_send_packet(decoder, packet)
      return
    }
  }
}
