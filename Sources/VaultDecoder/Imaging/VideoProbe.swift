import CFFmpeg
import Foundation
import VaultCore

/// A video's container, opened with FFmpeg's MP4/QuickTime demuxer (and no other: the file
/// was recognised as ISO media by its first bytes, so no other demuxer's parser is ever
/// exposed to it) and read as far as its header: the video stream's coded size, duration,
/// codec, display matrix, date taken and Apple's content identifier. Everything is checked
/// against `Thumbnailer`'s bounds before a picture is decoded.
final class VideoProbe {
  /// The name that stands for the video in errors.
  var path: String { input.path }
  let input: VideoInput
  private(set) var format: UnsafeMutablePointer<AVFormatContext>?
  let stream: UnsafeMutablePointer<AVStream>
  /// The coded size of the pictures, as stored (before the display matrix turns them).
  let width: Int
  let height: Int
  /// Bytes a sample of the pictures takes (2 for 10-bit HEVC, as phones shoot HDR).
  let bytesPerSample: Int
  /// The duration, in microseconds: the container's, cut at the first of the stream's
  /// samples the file does not hold whole (a copy cut short keeps a header that names them
  /// all). What plays, and where the thumbnail is looked for.
  let durationMicroseconds: Int64
  /// The duration the container declares, in microseconds.
  let declaredMicroseconds: Int64
  /// FFmpeg's name of the codec ("h264", "hevc").
  let codec: String
  /// The EXIF orientation that shows the pictures as the display matrix says (1, 3, 6 or 8).
  let orientation: Int
  /// When it was taken: Apple's `com.apple.quicktime.creationdate` (local time and offset),
  /// else the container's `creation_time` (UTC).
  let taken: CaptureTime?
  /// Apple's `com.apple.quicktime.content.identifier`, which a Live Photo's still shares.
  let contentIdentifier: String?
  /// Whether it has the still-image-time metadata track of a Live Photo's movie
  /// (`LiveMotionMarker`): only then does its identifier pair it with a still.
  let isLiveMotion: Bool

  /// The demuxers a video may be read by: MP4, QuickTime and their relatives are one.
  static let demuxer = "mov,mp4,m4a,3gp,3g2,mj2"

  /// Opens and checks the video `input` reads, within `limits`' time budget.
  init(_ input: VideoInput, limits: Thumbnailer) throws {
    FFmpegLog.silence
    self.input = input
    input.startBudget(seconds: limits.videoTimeLimit)
    try Self.checkSampleIndex(of: input, limits: limits)
    isLiveMotion = try LiveMotionMarker.present(size: input.size) { try input.bytes(at: $0, count: $1) }
    format = try Self.open(input)
    let index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
    guard index >= 0 else {
      avformat_close_input(&format)
      throw VaultError.videoUnreadable(path: input.path, reason: "it has no video stream")
    }
    stream = format!.pointee.streams[Int(index)]!
    Self.readPictureSize(of: stream, in: format!)
    let parameters = stream.pointee.codecpar!.pointee
    (width, height) = (Int(parameters.width), Int(parameters.height))
    bytesPerSample = parameters.bits_per_raw_sample > 8 ? 2 : 1
    codec = String(cString: avcodec_get_name(parameters.codec_id))
    declaredMicroseconds = Self.duration(of: stream, in: format!)
    durationMicroseconds = Self.heldDuration(of: stream, declared: declaredMicroseconds, fileSize: input.size)
    orientation = Self.orientation(of: stream)
    let metadata = format!.pointee.metadata
    taken = VideoDate.taken(
      apple: Self.tag("com.apple.quicktime.creationdate", in: metadata),
      container: Self.tag("creation_time", in: metadata)
        ?? Self.tag("creation_time", in: stream.pointee.metadata))
    contentIdentifier = Self.tag("com.apple.quicktime.content.identifier", in: metadata)
    try check(limits: limits, decodable: avcodec_find_decoder(parameters.codec_id) != nil)
  }

  deinit {
    avformat_close_input(&format)
  }

  /// What the container says of when the video was taken (it names no camera).
  var details: PhotoDetails { PhotoDetails(taken: taken) }

  /// Refuses a file whose tracks declare more samples than FFmpeg may index within the
  /// memory limit, before FFmpeg reads its header (see `MP4SampleCount`).
  private static func checkSampleIndex(of input: VideoInput, limits: Thumbnailer) throws {
    let samples = try MP4SampleCount.declared(size: input.size) { try input.bytes(at: $0, count: $1) }
    let (bytes, overflow) = samples.multipliedReportingOverflow(by: MP4SampleCount.indexBytesPerSample)
    guard overflow || bytes > Int64(limits.memoryLimit) else { return }
    throw VaultError.videoUnreadable(
      path: input.path,
      reason: "its tracks declare \(samples) samples, more than \(limits.memoryLimit >> 20) MiB can index")
  }

  /// The container, opened through `input` by the MP4 demuxer, its header read.
  private static func open(_ input: VideoInput) throws -> UnsafeMutablePointer<AVFormatContext> {
    var format = avformat_alloc_context()
    guard format != nil else { throw VaultError.videoUnreadable(path: input.path, reason: "out of memory") }
    format!.pointee.pb = input.context
    format!.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
    format!.pointee.interrupt_callback = AVIOInterruptCB(
      callback: VideoInput.interrupt, opaque: Unmanaged.passUnretained(input).toOpaque())
    var options: OpaquePointer?
    defer { av_dict_free(&options) }
    // References to other files (drefs) are never followed; the demuxer reads the header
    // only, and the probe looks at no more than a megabyte.
    av_dict_set(&options, "enable_drefs", "0", 0)
    av_dict_set(&options, "probesize", "1048576", 0)
    av_dict_set(&options, "format_whitelist", demuxer, 0)
    let status = avformat_open_input(&format, nil, av_find_input_format("mov"), &options)
    guard status >= 0, let opened = format else {
      // avformat_open_input frees the context when it fails.
      throw failure(status, input: input, doing: "its container cannot be read")
    }
    return opened
  }

  /// The error for an FFmpeg status: the time budget spent, or FFmpeg's own words.
  static func failure(_ status: Int32, input: VideoInput, doing what: String) -> VaultError {
    if let damaged = input.readFailure as? VaultError { return damaged }
    if input.timedOut || status == vault_av_error_exit() {
      return .videoUnreadable(
        path: input.path, reason: "reading it took too long; it may be built to stall readers")
    }
    if status == -ENOMEM {
      let limit = FFmpegLog.allocationLimit >> 20
      return .videoUnreadable(
        path: input.path, reason: "\(what): its header claims a table or picture over \(limit) MiB")
    }
    var text = [CChar](repeating: 0, count: 128)
    av_strerror(status, &text, text.count)
    let words = String(nulTerminated: text)
    return .videoUnreadable(path: input.path, reason: "\(what) (\(words.lowercased()))")
  }

  /// Refuses what no camera makes, from the header alone: no pixels, more pixels than a
  /// still may have, a duration over the limit, a codec FFmpeg cannot decode, or decoding
  /// that would take more than a photo's memory.
  private func check(limits: Thumbnailer, decodable: Bool) throws {
    guard width > 0, height > 0 else {
      throw VaultError.videoUnreadable(path: path, reason: "its header gives its pictures no size")
    }
    if width > PhotoRecord.sideLimit || height > PhotoRecord.sideLimit || width * height > limits.pixelLimit {
      throw VaultError.imageTooLarge(path: path, width: width, height: height, limit: limits.pixelLimit)
    }
    let limit = Int64(limits.videoDurationLimit * 1_000_000)
    guard (0...limit).contains(declaredMicroseconds) else {
      throw VaultError.videoUnreadable(
        path: path,
        reason: "its header claims a duration over \(Int(limits.videoDurationLimit / 3600)) hours")
    }
    guard decodable else {
      throw VaultError.videoUnreadable(
        path: path, reason: "its codec \(codec) is not one FFmpeg decodes here")
    }
    try limits.checkMemory(path: path, bytes: memoryNeeded(limits: limits))
  }

  /// The most memory decoding a picture takes: the decoder's reference and output pictures
  /// (H.264 and HEVC keep at most 16, a 4K stream at most 6; `framesHeld` with one thread),
  /// the picture kept as the best so far, and the thumbnail's RGB.
  func memoryNeeded(limits: Thumbnailer) -> Int {
    let picture = width * height * bytesPerSample * 3 / 2
    let target = limits.targetSize(width: width, height: height)
    return picture * (Self.framesHeld + 1) + target.width * target.height * 3
      + Thumbnailer.fixedMemory
  }

  /// Pictures a decoder holds at once: its references and those waiting to be output.
  static let framesHeld = 9

  /// Reads the size of the pictures from the stream itself when the header gives none (an
  /// MPEG-4 Part 2 stream in MP4 keeps it in its own headers): FFmpeg decodes its first
  /// pictures, within the megabyte the probe may read and the time budget.
  private static func readPictureSize(
    of stream: UnsafeMutablePointer<AVStream>, in format: UnsafeMutablePointer<AVFormatContext>
  ) {
    let parameters = stream.pointee.codecpar!.pointee
    guard parameters.width <= 0 || parameters.height <= 0 else { return }
    for other in 0..<Int(format.pointee.nb_streams) where format.pointee.streams[other] != stream {
      format.pointee.streams[other]!.pointee.discard = AVDISCARD_ALL
    }
    // One decoding thread, as `VideoFrames` decodes. A failure leaves the size unknown,
    // which `check` refuses.
    let count = Int(format.pointee.nb_streams)
    var options = [OpaquePointer?](repeating: nil, count: count)
    defer { for number in 0..<count { av_dict_free(&options[number]) } }
    for number in 0..<count { av_dict_set(&options[number], "threads", "1", 0) }
    _ = options.withUnsafeMutableBufferPointer { avformat_find_stream_info(format, $0.baseAddress) }
  }

  /// `declared` cut at the time of the first of `stream`'s samples that the file of
  /// `fileSize` bytes does not hold whole, from the sample index the header gave.
  private static func heldDuration(
    of stream: UnsafeMutablePointer<AVStream>, declared: Int64, fileSize: Int64
  )
    -> Int64
  {
    let base = stream.pointee.time_base
    let start = stream.pointee.start_time == vault_av_nopts_value() ? 0 : stream.pointee.start_time
    for number in 0..<avformat_index_get_entries_count(stream) {
      guard let entry = avformat_index_get_entry(stream, number) else { break }
      guard entry.pointee.pos + Int64(entry.pointee.size) > fileSize else { continue }
      let time = av_rescale_q(entry.pointee.timestamp - start, base, AVRational(num: 1, den: AV_TIME_BASE))
      return min(declared, max(0, time))
    }
    return declared
  }

  /// The video stream's duration, else the container's, in microseconds (0 when neither says).
  private static func duration(
    of stream: UnsafeMutablePointer<AVStream>, in format: UnsafeMutablePointer<AVFormatContext>
  ) -> Int64 {
    let base = stream.pointee.time_base
    if stream.pointee.duration > 0, base.num > 0, base.den > 0 {
      return av_rescale_q(stream.pointee.duration, base, AVRational(num: 1, den: AV_TIME_BASE))
    }
    return max(0, format.pointee.duration)
  }

  /// The EXIF orientation of the stream's display matrix: FFmpeg gives the angle to turn the
  /// pictures counterclockwise for showing, in degrees. Mirroring is not applied.
  private static func orientation(of stream: UnsafeMutablePointer<AVStream>) -> Int {
    var size: Int = 0
    guard let data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else {
      return 1
    }
    let angle = data.withMemoryRebound(to: Int32.self, capacity: 9) { av_display_rotation_get($0) }
    guard angle.isFinite else { return 1 }
    switch (Int(angle.rounded()) % 360 + 360) % 360 {
    case 90: return 8
    case 180: return 3
    case 270: return 6
    default: return 1
    }
  }

  /// A metadata tag's value, or nil; values longer than a tag needs are dropped.
  private static func tag(_ key: String, in dictionary: OpaquePointer?) -> String? {
    guard let entry = av_dict_get(dictionary, key, nil, AV_DICT_MATCH_CASE), let value = entry.pointee.value
    else { return nil }
    let text = String(cString: value)
    return text.isEmpty || text.utf8.count > 256 ? nil : text
  }
}

/// FFmpeg's process-wide settings, made once before it is first used.
enum FFmpegLog {
  /// FFmpeg prints its complaints to stderr by default; VaultCore never prints. And no
  /// single allocation of FFmpeg's may pass `allocationLimit`: the MP4 demuxer allocates
  /// the tables a header announces (a 2 KiB file claiming 400 million keyframes asked for
  /// 1.7 GB) before it finds the file too short to hold them.
  static let silence: Void = {
    av_log_set_level(AV_LOG_QUIET)
    av_max_alloc(allocationLimit)
  }()

  /// 64 MiB: more than any plane of a picture within `Thumbnailer.memoryLimit` (a 4K
  /// 10-bit one's luma plane takes 17 MB), and than the sample tables of hours of video.
  static let allocationLimit = 64 << 20
}
