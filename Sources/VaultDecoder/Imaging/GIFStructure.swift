import VaultCore

/// The block structure of a GIF (GIF89a specification), walked without decoding anything:
/// the logical screen, how many frames there are and how large the largest is. Read
/// before giflib is given the file, so that an animation bomb (a tiny file of a hundred
/// thousand frames, or one frame of 65535×65535) is refused before any pixel is allocated,
/// and without giflib keeping a record of every frame as it walks.
struct GIFStructure {
  /// The logical screen, the canvas every frame is drawn on.
  let screenWidth: Int
  let screenHeight: Int
  let frameCount: Int
  /// The most pixels one frame's image descriptor declares.
  let largestFramePixels: Int
  /// The first frame's rectangle on the screen.
  let firstFrame: PixelRect

  /// Why a file cannot be walked, worded for the end of "cannot decode image: ...".
  struct Damage: Error {
    let reason: String
    static let truncated = Damage(reason: "the file ends too early (truncated)")
  }

  init(_ bytes: UnsafeRawBufferPointer) throws {
    guard bytes.count >= 13, bytes.starts(with: "GIF".utf8) else { throw Damage.truncated }
    screenWidth = Self.little16(bytes, 6)
    screenHeight = Self.little16(bytes, 8)
    var offset = 13 + Self.colorTableLength(bytes[10])
    var frames = 0
    var largest = 0
    var first: PixelRect?
    walk: while true {
      // Some encoders leave out the trailer: a file that ends between blocks, after a
      // whole frame, is read as browsers read it. One cut inside a block is truncated.
      if offset >= bytes.count && frames > 0 { break walk }
      guard offset < bytes.count else { throw Damage.truncated }
      switch bytes[offset] {
      case 0x2C:
        // An image descriptor: position, size, flags; its colour table; the LZW code size.
        guard offset + 10 <= bytes.count else { throw Damage.truncated }
        let rect = PixelRect(
          x: Self.little16(bytes, offset + 1), y: Self.little16(bytes, offset + 3),
          width: Self.little16(bytes, offset + 5), height: Self.little16(bytes, offset + 7))
        if first == nil { first = rect }
        frames += 1
        largest = max(largest, rect.width * rect.height)
        offset += 10 + Self.colorTableLength(bytes[offset + 9]) + 1
        offset = try Self.skipSubBlocks(bytes, from: offset)
      case 0x21:
        // An extension: its label, then its data.
        offset = try Self.skipSubBlocks(bytes, from: offset + 2)
      case 0x3B:
        break walk
      case let other:
        throw Damage(reason: "damaged GIF: unknown block 0x\(String(other, radix: 16)) at byte \(offset)")
      }
    }
    guard let first else { throw Damage(reason: "the GIF holds no picture") }
    frameCount = frames
    largestFramePixels = largest
    firstFrame = first
  }

  /// The canvas: the logical screen, or where a file leaves it empty (some encoders do,
  /// and browsers then show the first frame), the first frame's extent.
  var canvasWidth: Int { screenWidth > 0 ? screenWidth : firstFrame.x + firstFrame.width }
  var canvasHeight: Int { screenHeight > 0 ? screenHeight : firstFrame.y + firstFrame.height }

  /// The offset after a run of data sub-blocks (each a length byte and that many bytes,
  /// ended by a zero length) that starts at `offset`.
  private static func skipSubBlocks(_ bytes: UnsafeRawBufferPointer, from start: Int) throws -> Int {
    var offset = start
    while true {
      guard offset < bytes.count else { throw Damage.truncated }
      let length = Int(bytes[offset])
      offset += 1 + length
      if length == 0 { return offset }
    }
  }

  /// The bytes of the colour table that a screen or image descriptor's flags announce.
  private static func colorTableLength(_ flags: UInt8) -> Int {
    flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
  }

  private static func little16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
    Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
  }
}
