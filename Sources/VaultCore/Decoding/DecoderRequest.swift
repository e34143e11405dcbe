/// What the parent asks a helper to read from a file (`analyse`): which of the header's
/// facts, thumbnail, details and Live identifier it wants, with the thumbnailer's settings.
package struct DecoderRequest {
  package struct Wants: OptionSet {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    package static let thumbnail = Wants(rawValue: 1)
    package static let details = Wants(rawValue: 2)
    package static let liveIdentifier = Wants(rawValue: 4)
    /// The picture decoded to be shown, alone: its pixels come through shared memory.
    package static let picture = Wants(rawValue: 8)
  }

  package var wants: Wants
  package var thumbnailer: Thumbnailer
  package var format: ImageFormat
  /// The name that stands for the file in the helper's messages (the parent puts its own
  /// in the errors it reports).
  package var name: String
  package var size: Int64
  /// How the file's bytes come.
  package var delivery: Delivery
  /// For a `picture`: the smallest size (as shown) it may be decoded at; nil for full size.
  package var minimumSize: PixelSize? = nil

  package init(
    wants: Wants, thumbnailer: Thumbnailer, format: ImageFormat, name: String, size: Int64,
    delivery: Delivery,
    minimumSize: PixelSize? = nil
  ) {
    (self.wants, self.thumbnailer, self.format, self.name) = (wants, thumbnailer, format, name)
    (self.size, self.delivery, self.minimumSize) = (size, delivery, minimumSize)
  }

  package enum Delivery: UInt8 {
    /// The helper asks for ranges (`read`).
    case ranges = 0
    /// The file follows whole, in a `file` frame (the parent holds it).
    case bytes = 1
    /// A read-only descriptor of the file came with the frame (SCM_RIGHTS): a file being
    /// imported, too large to hold whole, read through it as `add` read it before.
    case descriptor = 2
  }

  package static let nameLimit = 4096

  /// The request's fields.
  package var payload: [UInt8] {
    var writer = ByteWriter()
    writer.byte(wants.rawValue)
    thumbnailer.encode(into: &writer)
    writer.text(format.rawValue)
    writer.text(name)
    writer.int64(size)
    writer.optional(minimumSize) {
      $0.uint32(UInt32(clamping: $1.width))
      $0.uint32(UInt32(clamping: $1.height))
    }
    writer.byte(delivery.rawValue)
    return writer.output
  }

  /// The request in a frame's payload; nil when any field is out of bounds.
  package static func parse(_ payload: [UInt8]) -> DecoderRequest? {
    payload.withUnsafeBytes { buffer in
      var reader = ByteReader(buffer)
      guard let wants = reader.byte(), let thumbnailer = Thumbnailer(decoding: &reader),
        let format = reader.text(limit: 16).flatMap(ImageFormat.init(rawValue:)),
        let name = reader.text(limit: Self.nameLimit), let size = reader.integer(in: 0...Int64.max),
        let minimumSize = reader.optional({ reader -> PixelSize? in
          guard let width = reader.uint32(), let height = reader.uint32() else { return nil }
          return PixelSize(width: Int(width), height: Int(height))
        }),
        let delivery = reader.byte().flatMap(Delivery.init(rawValue:))
      else { return nil }
      guard reader.remaining == 0, delivery != .bytes || size <= DecoderFrame.fileLimit else { return nil }
      return DecoderRequest(
        wants: Wants(rawValue: wants), thumbnailer: thumbnailer, format: format, name: name, size: size,
        delivery: delivery, minimumSize: minimumSize)
    }
  }
}

extension Thumbnailer {
  package func encode(into writer: inout ByteWriter) {
    for value in [longSide, quality, pixelLimit, animationPixelLimit, wholeInterlacedPixelLimit, memoryLimit]
    {
      writer.int64(Int64(value))
    }
    writer.double(videoTimeLimit)
    writer.double(videoDurationLimit)
    writer.byte(background)
  }

  /// The settings `encode` wrote; nil when one is out of what the parent could send.
  package init?(decoding reader: inout ByteReader) {
    self.init()
    let bound = Int64(Int32.max) << 8
    guard let longSide = reader.integer(in: 1...Int64(RGBImage.thumbnailSideLimit)),
      let quality = reader.integer(in: 1...100),
      let pixelLimit = reader.integer(in: 1...bound), let animationPixelLimit = reader.integer(in: 1...bound),
      let wholeInterlaced = reader.integer(in: 0...bound), let memoryLimit = reader.integer(in: 1...bound),
      let videoTimeLimit = reader.double(), videoTimeLimit.isFinite,
      let videoDurationLimit = reader.double(), videoDurationLimit.isFinite, let background = reader.byte()
    else { return nil }
    (self.longSide, self.quality, self.pixelLimit) = (Int(longSide), Int(quality), Int(pixelLimit))
    (self.animationPixelLimit, self.wholeInterlacedPixelLimit) = (
      Int(animationPixelLimit), Int(wholeInterlaced)
    )
    (self.memoryLimit, self.videoTimeLimit, self.videoDurationLimit) =
      (Int(memoryLimit), videoTimeLimit, videoDurationLimit)
    self.background = background
  }
}
