/// A video or an animation played in the helper (`play`, `nextFrame`, `seek`,
/// `stopPlaying`): the helper keeps the file open between requests; each frame's pixels
/// come through shared memory as a picture's do, each request under its own deadline.
extension DecoderWorker {
  /// Opens `input` to play; nil when it is a still (a GIF or WebP of one frame).
  func play(_ request: DecoderRequest, input: DecoderInput, name: String) throws -> DecoderPlaying? {
    let input = input.sendable
    var request = request
    (request.wants, request.size, request.delivery) = ([], input.size, input.delivery)
    let reply = try exchange(DecoderFrame(.play, request.payload), name: name, input: input)
    guard reply.kind == .playing, let playing = DecoderPlaying.parse(reply.payload) else {
      throw malformed(name: name)
    }
    return playing
  }

  /// The next frame of what plays, scaled to what `size` answers for its time (nil: it is
  /// dropped, and comes without pixels); nil at the end. `input` answers a video's reads.
  func nextFrame(input: DecoderInput?, name: String, scaledTo size: (Int64) -> PixelSize?) throws
    -> MovingFrame?
  {
    defer { releaseSharedPicture() }
    var asked: PixelSize??
    // The exchange asks for the size while it runs, never after.
    let reply = try withoutActuallyEscaping(size) { size in
      try exchange(
        DecoderFrame(.nextFrame), name: name, input: input, sharedMemory: true,
        frameSize: { time in
          asked = .some(size(time))
          return asked!
        })
    }
    guard reply.kind == .frame, let frame = DecoderMovingFrame.parse(reply.payload) else {
      throw malformed(name: name)
    }
    switch frame {
    case .end:
      return nil
    case .frame(let microseconds, nil):
      guard case .some(nil) = asked else { throw malformed(name: name) }
      return MovingFrame(microseconds: microseconds, image: nil)
    case .frame(let microseconds, let shown?):
      // Exactly the size asked for, in exactly the memory handed over.
      guard asked == .some(shown), sharedPicture?.count == shown.width * shown.height * 3 else {
        throw malformed(name: name)
      }
      let pixels = try sharedPixels(name: name)
      return MovingFrame(
        microseconds: microseconds, image: RGBImage(width: shown.width, height: shown.height, pixels: pixels))
    }
  }

  /// Goes back to the start, or for a video to the keyframe at or before `microseconds`.
  func seek(toMicroseconds microseconds: Int64, input: DecoderInput?, name: String) throws {
    let reply = try exchange(
      DecoderFrame(.seek, DecoderFrameTime.payload(microseconds)), name: name, input: input)
    guard reply.kind == .ready, reply.payload.isEmpty else { throw malformed(name: name) }
  }

  /// Lets the helper free what it played.
  func stopPlaying(name: String) throws {
    let reply = try exchange(DecoderFrame(.stopPlaying), name: name, input: nil)
    guard reply.kind == .ready, reply.payload.isEmpty else { throw malformed(name: name) }
  }
}
