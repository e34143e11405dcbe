import Foundation

/// One message between vault and its decoder helper (docs/DECODER.md): a 4-byte big-endian
/// length, then that many bytes, the first of which is the message's kind.
package struct DecoderFrame: Equatable {
  package var kind: DecoderMessageKind
  package var payload: [UInt8]

  /// The largest frame either side accepts besides a `file`: a thumbnail's pixels at the
  /// largest side a request may ask for and its facts, or the most bytes a `data` frame
  /// answers a `read` with.
  package static let maxLength = max(
    DecoderAnalysis.frameLimit(longSide: RGBImage.thumbnailSideLimit), 1 + DecoderInput.readLimit)

  /// The largest file sent whole, in a `file` frame of one more byte (its kind);
  /// `DecoderInput.sendable` has a larger one read by range instead.
  package static let fileLimit = 64 << 20

  /// The frame's bytes as written: length, kind, payload.
  package var encoded: [UInt8] {
    var writer = ByteWriter()
    writer.uint32(UInt32(payload.count + 1))
    writer.byte(kind.rawValue)
    writer.bytes(payload)
    return writer.output
  }

  /// The frame in `body` (the bytes after the length), or nil when it is empty or of an
  /// unknown kind.
  package init?(body: [UInt8]) {
    guard let first = body.first, let kind = DecoderMessageKind(rawValue: first) else { return nil }
    self.kind = kind
    payload = Array(body.dropFirst())
  }

  package init(_ kind: DecoderMessageKind, _ payload: [UInt8] = []) {
    self.kind = kind
    self.payload = payload
  }

  /// The length in a frame's first four bytes, when it is one `maxLength` allows.
  package static func bodyLength(_ header: [UInt8], limit: Int = maxLength) -> Int? {
    guard header.count == 4 else { return nil }
    let length = header.reduce(0) { $0 << 8 | Int($1) }
    return (1...limit).contains(length) ? length : nil
  }
}

/// What kinds of message there are; the helper's replies have the high bit set.
package enum DecoderMessageKind: UInt8 {
  /// Parent → helper: "are you there", answered with `ready`.
  case probe = 0x01
  /// Parent → helper: read a file's header, thumbnail, details and Live identifier.
  case analyse = 0x02
  /// Parent → helper: the bytes a `read` asked for.
  case data = 0x03
  /// Parent → helper: the file whole, right after an `analyse` whose delivery is `bytes`.
  case file = 0x07
  /// Parent → helper: the bytes a `read` asked for cannot be had (a damaged chunk).
  case dataFailed = 0x04
  /// Parent → helper: the shared memory a `needBuffer` asked for (its descriptor comes
  /// with the frame).
  case buffer = 0x06
  /// Parent → helper: open a video or an animation to play (a `DecoderRequest`), until
  /// `stopPlaying` or the next `play`; answered by `playing`.
  case play = 0x08
  /// Parent → helper: decode the playing file's next frame; answered by `frame`.
  case nextFrame = 0x09
  /// Parent → helper: the size to scale the frame a `frameDecoded` named to (0 × 0: drop it).
  case frameSize = 0x0A
  /// Parent → helper: go back to the start, or a video's keyframe before a time; `ready`.
  case seek = 0x0B
  /// Parent → helper: the playing file is no longer wanted; `ready`.
  case stopPlaying = 0x0C
  /// Parent → helper, tests only: make a forbidden call, spin, or fill memory.
  case fault = 0x0F
  /// Helper → parent: send me `count` bytes at `offset` of the file being read.
  case read = 0x10
  /// Helper → parent: give me shared memory of `count` bytes for a decoded picture.
  case needBuffer = 0x11
  /// Helper → parent: a frame is decoded; at what time (the parent answers `frameSize`).
  case frameDecoded = 0x12
  /// Helper → parent: a dying helper's last word (written by a signal handler in C).
  case dying = 0x7F
  case ready = 0x81
  case analysis = 0x82
  /// Helper → parent: a picture is decoded into the shared memory (`DecodedPicture`).
  case picture = 0x83
  /// Helper → parent: what `play` opened (`DecoderPlaying`).
  case playing = 0x84
  /// Helper → parent: the next frame (`DecoderMovingFrame`); its pixels are in the buffer.
  case frame = 0x85
  case failure = 0x8E
}
