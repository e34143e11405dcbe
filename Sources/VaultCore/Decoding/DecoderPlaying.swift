/// What a helper opened to play (`playing`): nothing, for a GIF or WebP of one frame; else
/// the size of a frame as shown and, for a video, how long it plays.
package struct DecoderPlaying: Equatable {
  package var shownSize: PixelSize
  package var durationMicroseconds: Int64?

  package var payload: [UInt8] {
    var writer = ByteWriter()
    writer.uint32(UInt32(shownSize.width))
    writer.uint32(UInt32(shownSize.height))
    writer.optional(durationMicroseconds) { $0.int64($1) }
    return writer.output
  }

  /// The reply's payload: empty for a still (nil), else the fields above, in bounds.
  package static func parse(_ payload: [UInt8]) -> DecoderPlaying?? {
    if payload.isEmpty { return .some(nil) }
    return payload.withUnsafeBytes { buffer -> DecoderPlaying?? in
      var reader = ByteReader(buffer)
      guard let width = reader.side(), let height = reader.side(),
        let duration = reader.optional({ $0.integer(in: 0...DecoderMovingFrame.timeLimit) }),
        reader.remaining == 0
      else { return nil }
      return .some(
        DecoderPlaying(shownSize: PixelSize(width: width, height: height), durationMicroseconds: duration))
    }
  }

  package init(shownSize: PixelSize, durationMicroseconds: Int64?) {
    (self.shownSize, self.durationMicroseconds) = (shownSize, durationMicroseconds)
  }
}

/// A frame a helper played (`frame`): the end of the file, or a frame's time and, unless
/// the parent dropped it, its size (its pixels are in the shared memory handed over).
package enum DecoderMovingFrame: Equatable {
  case end
  case frame(microseconds: Int64, size: PixelSize?)

  /// The furthest a frame's time may lie from the start either way, in microseconds (about
  /// 12 days; a real file's frames before its start are dropped by the player): the player
  /// subtracts and adds times, which a helper's Int64.min or max would overflow, a trap in
  /// the process that holds the key.
  package static let timeLimit: Int64 = 1 << 40

  /// `time` when it is within `timeLimit` of the start.
  static func bounded(_ time: Int64?) -> Int64? {
    guard let time, (-timeLimit...timeLimit).contains(time) else { return nil }
    return time
  }

  package var payload: [UInt8] {
    var writer = ByteWriter()
    switch self {
    case .end:
      writer.byte(0)
    case .frame(let microseconds, let size):
      writer.byte(size == nil ? 1 : 2)
      writer.int64(microseconds)
      if let size {
        writer.uint32(UInt32(size.width))
        writer.uint32(UInt32(size.height))
      }
    }
    return writer.output
  }

  package static func parse(_ payload: [UInt8]) -> DecoderMovingFrame? {
    payload.withUnsafeBytes { buffer -> DecoderMovingFrame? in
      var reader = ByteReader(buffer)
      let parsed: DecoderMovingFrame?
      switch reader.byte() {
      case 0?: parsed = .end
      case 1?: parsed = Self.bounded(reader.int64()).map { .frame(microseconds: $0, size: nil) }
      case 2?:
        guard let time = Self.bounded(reader.int64()), let width = reader.side(), let height = reader.side()
        else {
          return nil
        }
        parsed = .frame(microseconds: time, size: PixelSize(width: width, height: height))
      default: parsed = nil
      }
      return reader.remaining == 0 ? parsed : nil
    }
  }
}

/// The size a parent answers a `frameDecoded` with: 0 × 0 to drop the frame.
package enum DecoderFrameSize {
  package static func payload(_ size: PixelSize?) -> [UInt8] {
    var writer = ByteWriter()
    writer.uint32(UInt32(clamping: size?.width ?? 0))
    writer.uint32(UInt32(clamping: size?.height ?? 0))
    return writer.output
  }

  /// The size asked for, nil to drop; `.none` when malformed (a side 0 and the other not,
  /// or a picture over `byteLimit` bytes of RGB).
  package static func parse(_ payload: [UInt8], byteLimit: Int) -> PixelSize?? {
    payload.withUnsafeBytes { buffer -> PixelSize?? in
      var reader = ByteReader(buffer)
      guard let width = reader.uint32(), let height = reader.uint32(), reader.remaining == 0 else {
        return nil
      }
      if width == 0 && height == 0 { return .some(nil) }
      // Divided, not multiplied: two sides of 2³² − 1 would overflow.
      guard width > 0, height > 0, Int(width) <= byteLimit / 3 / Int(height) else { return nil }
      return .some(PixelSize(width: Int(width), height: Int(height)))
    }
  }
}

/// The time a `frameDecoded` names: microseconds from the start (int64).
package enum DecoderFrameTime {
  package static func payload(_ microseconds: Int64) -> [UInt8] {
    var writer = ByteWriter()
    writer.int64(microseconds)
    return writer.output
  }

  /// The time, nil when malformed or further than `DecoderMovingFrame.timeLimit` from the start.
  package static func parse(_ payload: [UInt8]) -> Int64? {
    payload.withUnsafeBytes { buffer in
      var reader = ByteReader(buffer)
      guard let time = DecoderMovingFrame.bounded(reader.int64()), reader.remaining == 0 else { return nil }
      return time
    }
  }
}
