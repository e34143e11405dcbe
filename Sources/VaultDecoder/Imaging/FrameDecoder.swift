import VaultCore

/// A decoder of the formats that may hold an animation (GIF, WebP, AVIF): its header is
/// read when it is made, so that its size, frame count and memory are known before
/// anything grows with the picture; then it decodes the first frame whole, which stands
/// for the file (its thumbnail, what `view` shows).
protocol FrameDecoder: AnyObject {
  /// Names the file in errors.
  var path: String { get }
  /// The size of a frame as stored (an animation's canvas), before `orientation`.
  var width: Int { get }
  var height: Int { get }
  /// How many frames the file holds: 1 for a still.
  var frameCount: Int { get }
  /// The EXIF orientation that turns a frame as stored into the frame as shown: AVIF's
  /// own rotation and mirroring (irot, imir) expressed as one; 1 for GIF and WebP.
  var orientation: Int { get }
  /// The most memory decoding the first frame takes, the file's bytes included when the
  /// decoder holds them, known from the header.
  var decodingBytes: Int { get }
  /// Decodes the first frame (an animation's as first shown: its canvas).
  func decodeFirstFrame() throws -> DecodedFrame
  /// What the file says of when it was taken and by which camera.
  func details() -> PhotoDetails
}

extension FrameDecoder {
  /// The most pixels one frame decodes: a frame of a GIF may be larger than its canvas.
  var largestFramePixels: Int { width * height }

  /// Whether the file is an animation.
  var isAnimated: Bool { frameCount > 1 }
}

/// Opens the decoder of a GIF, WebP or AVIF, from memory or through a file's descriptor.
enum FrameDecoders {
  /// Opens `bytes`, a `format` file (GIF, WebP or AVIF) that `name` stands for in errors.
  static func open(_ bytes: PinnedBytes, name: String, format: ImageFormat) throws -> FrameDecoder {
    switch format {
    case .gif: return try GIFDecoder(pinned: bytes, name: name)
    case .webp: return try WebPDecoder(pinned: bytes, name: name)
    case .avif: return try AVIFDecoder(pinned: bytes, name: name)
    case .jpeg, .png, .heic, .mp4, .mov: preconditionFailure("\(format.displayName) has a decoder of its own")
    }
  }

  /// The largest file opened through its descriptor: these libraries decode from memory
  /// only, so the file is read whole before its header says what decoding takes, and so
  /// before an import reserves memory for it. As much as an import holds of any photo
  /// (`PhotoImporter.inMemoryFileLimit`).
  static let fileSizeLimit = 64 << 20

  /// Opens a file through its descriptor: reads it whole first, unless it is larger than
  /// `fileSizeLimit`.
  static func open(_ file: SourceFile, format: ImageFormat) throws -> FrameDecoder {
    try checkSize(file.size, path: file.path, format: format)
    return try open(file.readAll(), name: file.path, format: format)
  }

  /// Refuses a file over `fileSizeLimit` before it is read.
  static func checkSize(_ size: Int64, path: String, format: ImageFormat) throws {
    guard size <= Int64(fileSizeLimit) else {
      throw VaultError.decodeFailed(
        path: path,
        reason: "a \(format.displayName) file of more than \(fileSizeLimit >> 20) MiB is not imported "
          + "(it is decoded from memory)")
    }
  }
}
