import Foundation
import VaultCore

/// The decoder helper's side of the protocol (docs/DECODER.md): it answers the parent's
/// requests one at a time on `channel` until the parent closes it. Runs inside the
/// sandbox that `vault-decoder` sets up before it calls `serve`.
public enum DecoderService {
  /// Does, before the sandbox closes, what the codecs would otherwise do lazily on their
  /// first file and cannot do inside it (libheif opens its plugin folder; FFmpeg's log
  /// and allocation settings).
  public static func prepare() {
    HEIFDecoder.initializeLibrary()
    FFmpegLog.silence
    // glibc reads the time zone (/etc/localtime, or TZ's file) at the first conversion of a
    // time, gmtime_r included, as FFmpeg makes of a container's creation_time; inside the
    // sandbox that open is forbidden and killed the helper: read it now, once.
    tzset()
  }

  /// Serves requests on `descriptor` until it closes; `fault` performs the test-only
  /// faults (the forbidden calls live in C, beside the filter). Never returns.
  public static func serve(descriptor: Int32, fault: (DecoderFault) -> Void) -> Never {
    let channel = DecoderChannel(descriptor: descriptor, acceptsDescriptors: true)
    var playing: DecoderPlayingSession?
    let pixels = SharedPixelTarget()
    while true {
      var frame: DecoderFrame
      do {
        frame = try channel.receive()
      } catch DecoderChannel.Failure.closed {
        exit(0)
      } catch {
        exit(65)
      }
      // A request holds a file's name; a `data` frame never comes here (`DecoderRemoteFile`).
      defer { frame.payload.wipe() }
      do {
        try answer(frame, on: channel, playing: &playing, pixels: pixels, fault: fault)
      } catch {
        // The socket failed, or the parent broke the protocol: nothing more to say.
        exit(65)
      }
    }
  }

  /// Answers `frame`; `playing` is what the last `play` opened, and `pixels` the shared
  /// memory kept for pictures, both kept between requests.
  package static func answer(
    _ frame: DecoderFrame, on channel: DecoderChannel, playing: inout DecoderPlayingSession?,
    pixels: SharedPixelTarget, fault: (DecoderFault) -> Void
  ) throws {
    switch frame.kind {
    case .play, .nextFrame, .seek, .stopPlaying:
      if frame.kind == .nextFrame, playing?.spinsAtNextFrame == true { fault(.spin) }
      try channel.send(
        DecoderPlayingSession.answer(frame, on: channel, playing: &playing, pixels: pixels), deadline: nil)
    case .probe:
      try channel.send(DecoderFrame(.ready), deadline: nil)
    case .analyse:
      // The reply holds a thumbnail's pixels, or a picture's facts.
      var reply = try analysis(of: frame.payload, on: channel, pixels: pixels)
      defer { reply.payload.wipe() }
      try channel.send(reply, deadline: nil)
    case .fault:
      guard let kind = frame.payload.first.flatMap(DecoderFault.init(rawValue:)) else {
        throw DecoderChannel.Failure.malformed
      }
      if kind == .spinAtNextFrame, let session = playing {
        session.spinsAtNextFrame = true
      } else {
        fault(kind)
      }
      try channel.send(DecoderFrame(.ready), deadline: nil)
    default:
      throw DecoderChannel.Failure.malformed
    }
  }

  /// The reply to an `analyse` request: the analysis, or the failure it met.
  static func analysis(of payload: [UInt8], on channel: DecoderChannel, pixels: SharedPixelTarget) throws
    -> DecoderFrame
  {
    guard let request = DecoderRequest.parse(payload) else { throw DecoderChannel.Failure.malformed }
    let bytes = request.delivery == .bytes ? try channel.receiveFile(count: Int(request.size)) : nil
    do {
      if request.wants == [.picture] {
        return try picture(request, bytes: bytes, channel: channel, pixels: pixels)
      }
      let analysis = try analyse(request, bytes: bytes, channel: channel)
      defer { analysis.thumbnail?.image.pixels.wipeShared() }
      return DecoderFrame(.analysis, analysis.payload)
    } catch let error as DecoderChannel.Failure {
      throw error
    } catch {
      return DecoderFrame(.failure, DecoderFailure.payload(for: error))
    }
  }

  private static func analyse(_ request: DecoderRequest, bytes: PinnedBytes?, channel: DecoderChannel) throws
    -> DecoderAnalysis
  {
    if request.wants == [.details], let bytes {
      // verify's reading of details: whatever the file (or a large JPEG's or PNG's first
      // bytes) holds, never a failure.
      return DecoderAnalysis(
        thumbnail: nil, details: PhotoDetailsReader.read(bytes, format: request.format), liveIdentifier: nil)
    }
    let thumbnailer = request.thumbnailer
    var file = bytes
    var source: SourceFile?
    let image: OpenedImage
    switch request.delivery {
    case .descriptor:
      guard let descriptor = channel.takeDescriptor() else { throw DecoderChannel.Failure.malformed }
      source = try SourceFile(descriptor: descriptor, path: request.name)
      image = try thumbnailer.open(source!, format: request.format)
    case .ranges where request.format.isVideo:
      let remote = DecoderRemoteFile(channel: channel, size: request.size, name: request.name)
      image = try thumbnailer.openedVideo(
        VideoInput(.ranges(size: request.size, read: remote.read), path: request.name))
    case .ranges:
      if [.gif, .webp, .avif].contains(request.format) {
        try FrameDecoders.checkSize(request.size, path: request.name, format: request.format)
      }
      let remote = DecoderRemoteFile(channel: channel, size: request.size, name: request.name)
      file = try remote.readAll(limit: thumbnailer.memoryLimit)
      image = try thumbnailer.open(file!, name: request.name, format: request.format)
    case .bytes:
      guard let bytes else { throw DecoderChannel.Failure.malformed }
      image = try thumbnailer.open(bytes, name: request.name, format: request.format)
    }
    return DecoderAnalysis(
      thumbnail: request.wants.contains(.thumbnail) ? try thumbnailer.makeThumbnailPicture(image) : nil,
      details: request.wants.contains(.details)
        ? try PhotoDetailsReader.read(image, file: file, source: source) : nil,
      liveIdentifier: request.wants.contains(.liveIdentifier)
        ? AppleContentIdentifier.read(image, file: file, source: source) : nil)
  }
}

extension DecoderService {
  /// Decodes a picture to be shown (`PhotoDecoder`) and writes its pixels into shared
  /// memory the parent hands over for them; the reply says what they are.
  static func picture(
    _ request: DecoderRequest, bytes: PinnedBytes?, channel: DecoderChannel, pixels: SharedPixelTarget
  ) throws -> DecoderFrame {
    let limits = request.thumbnailer
    let decoded: DecodedPhoto
    switch request.delivery {
    case .ranges where request.format.isVideo:
      let remote = DecoderRemoteFile(channel: channel, size: request.size, name: request.name)
      let input = try VideoInput(.ranges(size: request.size, read: remote.read), path: request.name)
      decoded = try PhotoDecoder.decodeVideo(
        VideoProbe(input, limits: limits), minimumSize: request.minimumSize, limits: limits)
    case .bytes, .ranges:
      // A still is decoded from memory: read whole when it did not come so (an original
      // over `DecoderFrame.fileLimit`), within the memory a decode may take.
      let remote = DecoderRemoteFile(channel: channel, size: request.size, name: request.name)
      guard
        let whole = try bytes
          ?? (request.delivery == .ranges ? remote.readAll(limit: limits.memoryLimit) : nil)
      else { throw DecoderChannel.Failure.malformed }
      decoded = try PhotoDecoder.decode(
        PlaintextBytes(pinned: whole), format: request.format, name: request.name,
        minimumSize: request.minimumSize, limits: limits)
    case .descriptor:
      throw DecoderChannel.Failure.malformed
    }
    try pixels.write(decoded.image.pixels, on: channel, name: request.name)
    return DecoderFrame(.picture, DecoderPicture(decoded).payload)
  }
}

/// The file a request is about, read from the parent by range (`read`, answered by `data`).
final class DecoderRemoteFile {
  let channel: DecoderChannel
  let size: Int64
  let name: String

  init(channel: DecoderChannel, size: Int64, name: String) {
    (self.channel, self.size, self.name) = (channel, size, name)
  }

  /// Copies up to `buffer.count` bytes at `offset` into `buffer`; the count, 0 at the end.
  func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let count = min(buffer.count, DecoderInput.readLimit)
    var request = ByteWriter()
    request.int64(offset)
    request.uint32(UInt32(count))
    try channel.send(DecoderFrame(.read, request.output), deadline: nil)
    var reply = try channel.receive(limit: count + 1)
    defer { reply.payload.wipe() }
    switch reply.kind {
    case .data where reply.payload.count <= count:
      reply.payload.withUnsafeBytes { buffer.copyMemory(from: $0) }
      return reply.payload.count
    case .dataFailed:
      throw VaultError.io(path: name, reason: "the original could not be read")
    default:
      throw DecoderChannel.Failure.malformed
    }
  }

  /// The whole file, when it is no larger than `limit` (a picture the parent did not send
  /// whole: one larger than what decoding may take is refused before it is read).
  func readAll(limit: Int) throws -> PinnedBytes {
    guard size <= Int64(limit) else {
      throw VaultError.tooMuchMemory(path: name, bytes: Int(size), limit: limit)
    }
    let bytes = PinnedBytes(count: Int(size))
    var filled = 0
    while filled < bytes.count {
      let got = try read(
        at: Int64(filled),
        into: UnsafeMutableRawBufferPointer(
          rebasing: UnsafeMutableRawBufferPointer(bytes.buffer)[filled..<bytes.count]))
      guard got > 0 else {
        throw VaultError.io(path: name, reason: "file changed while it was being imported")
      }
      filled += got
    }
    return bytes
  }
}
