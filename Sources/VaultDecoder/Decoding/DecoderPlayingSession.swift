import VaultCore

/// The helper's side of playing (`play`, `nextFrame`, `seek`, `stopPlaying`): the video or
/// animation the parent's last `play` opened, kept between its requests. A video is read
/// by range from the parent as FFmpeg asks; an animation came whole and stays here. Each
/// frame is scaled to the size the parent answers for its time, then goes through shared
/// memory as a picture does.
package final class DecoderPlayingSession {
  private let picture: MovingPicture
  private let request: DecoderRequest
  /// Tests only (`DecoderFault.spinAtNextFrame`): the next frame never comes.
  var spinsAtNextFrame = false

  private init(picture: MovingPicture, request: DecoderRequest) {
    (self.picture, self.request) = (picture, request)
  }

  /// The reply to a playing request; `playing` is replaced by what a `play` opens (or by
  /// nothing), and ended by `stopPlaying`. A decoder's error is the reply (`failure`); a
  /// broken protocol is thrown.
  static func answer(
    _ frame: DecoderFrame, on channel: DecoderChannel, playing: inout DecoderPlayingSession?,
    pixels: SharedPixelTarget
  ) throws -> DecoderFrame {
    if frame.kind == .play || frame.kind == .stopPlaying { playing = nil }
    do {
      switch frame.kind {
      case .play:
        guard let request = DecoderRequest.parse(frame.payload), request.wants.isEmpty else {
          throw DecoderChannel.Failure.malformed
        }
        playing = try open(request, on: channel)
        return DecoderFrame(.playing, playing.map(\.opened)?.payload ?? [])
      case .nextFrame:
        guard frame.payload.isEmpty, let session = playing else { throw DecoderChannel.Failure.malformed }
        return try session.nextFrame(on: channel, pixels: pixels)
      case .seek:
        guard let time = DecoderFrameTime.parse(frame.payload), let session = playing else {
          throw DecoderChannel.Failure.malformed
        }
        try session.picture.seek(toMicroseconds: time)
        return DecoderFrame(.ready)
      default:
        guard frame.payload.isEmpty else { throw DecoderChannel.Failure.malformed }
        return DecoderFrame(.ready)
      }
    } catch let error as DecoderChannel.Failure {
      throw error
    } catch {
      return DecoderFrame(.failure, DecoderFailure.payload(for: error))
    }
  }

  /// Opens what `request` names: a video by range, a GIF or WebP sent whole; nil for a
  /// GIF or WebP of one frame.
  private static func open(_ request: DecoderRequest, on channel: DecoderChannel) throws
    -> DecoderPlayingSession?
  {
    let limits = request.thumbnailer
    let picture: MovingPicture?
    switch request.delivery {
    case .ranges where request.format.isVideo:
      let remote = DecoderRemoteFile(channel: channel, size: request.size, name: request.name)
      picture = try VideoPlayback(
        VideoInput(.ranges(size: request.size, read: remote.read), path: request.name), limits: limits)
    case .bytes where request.format == .gif || request.format == .webp:
      let bytes = try channel.receiveFile(count: Int(request.size))
      picture = try FramePlayback(
        PlaintextBytes(pinned: bytes), format: request.format, name: request.name, limits: limits)
    default:
      throw DecoderChannel.Failure.malformed
    }
    return picture.map { DecoderPlayingSession(picture: $0, request: request) }
  }

  private var opened: DecoderPlaying {
    DecoderPlaying(shownSize: picture.shownSize, durationMicroseconds: picture.durationMicroseconds)
  }

  /// Decodes the next frame, asks the parent the size for its time (`frameDecoded`), and
  /// sends its pixels at that size, or none when the parent drops it.
  private func nextFrame(on channel: DecoderChannel, pixels: SharedPixelTarget) throws -> DecoderFrame {
    var broken: Error?
    let decoded = try picture.nextFrame { time in
      do {
        try channel.send(DecoderFrame(.frameDecoded, DecoderFrameTime.payload(time)), deadline: nil)
        let reply = try channel.receive(limit: 16)
        // Frames are only ever scaled down (an animation's resampler cannot enlarge).
        guard reply.kind == .frameSize,
          let size = DecoderFrameSize.parse(reply.payload, byteLimit: request.thumbnailer.memoryLimit),
          size.map({ $0.width <= picture.shownSize.width && $0.height <= picture.shownSize.height }) ?? true
        else { throw DecoderChannel.Failure.malformed }
        return size
      } catch {
        broken = error
        return nil
      }
    }
    if let broken { throw broken }
    guard let decoded else { return DecoderFrame(.frame, DecoderMovingFrame.end.payload) }
    guard let image = decoded.image else {
      return DecoderFrame(
        .frame, DecoderMovingFrame.frame(microseconds: decoded.microseconds, size: nil).payload)
    }
    try pixels.write(image.pixels, on: channel, name: request.name)
    let size = PixelSize(width: image.width, height: image.height)
    return DecoderFrame(
      .frame, DecoderMovingFrame.frame(microseconds: decoded.microseconds, size: size).payload)
  }
}
