/// A picture a helper decoded to be shown (`picture`): its size as decoded (its pixels are
/// in the shared memory the parent handed over), the photo's full size as shown, the DCT
/// scale it was decoded at, and what its file says of when and by which camera.
package struct DecoderPicture {
  package var width: Int
  package var height: Int
  package var fullSize: PixelSize
  package var scaleDenominator: Int
  package var details: PhotoDetails

  package init(_ photo: DecodedPhoto) {
    (width, height, fullSize) = (photo.image.width, photo.image.height, photo.fullSize)
    (scaleDenominator, details) = (photo.scaleDenominator, photo.details)
  }

  package var payload: [UInt8] {
    var writer = ByteWriter()
    for side in [width, height, fullSize.width, fullSize.height] { writer.uint32(UInt32(side)) }
    writer.byte(UInt8(scaleDenominator))
    details.encode(into: &writer)
    return writer.output
  }

  /// The picture in a reply's payload, whose pixels fill exactly `byteCount` bytes of RGB;
  /// nil when a field is out of bounds.
  package init?(payload: [UInt8], byteCount: Int) {
    let parsed: DecoderPicture? = payload.withUnsafeBytes { buffer in
      var reader = ByteReader(buffer)
      let sides = (0..<4).compactMap { _ in reader.uint32().map(Int.init) }
      guard sides.count == 4, sides.allSatisfy({ (1...Int(DecoderAnalysis.sideLimit)).contains($0) }),
        // Sides of up to 2³¹ − 1 multiply within 64 bits; times 3 they would not.
        byteCount % 3 == 0, sides[0] * sides[1] == byteCount / 3, let scale = reader.byte(),
        [1, 2, 4, 8].contains(scale),
        let details = PhotoDetails(decoding: &reader), reader.remaining == 0
      else { return nil }
      return DecoderPicture(
        width: sides[0], height: sides[1], fullSize: PixelSize(width: sides[2], height: sides[3]),
        scaleDenominator: Int(scale), details: details)
    }
    guard let parsed else { return nil }
    self = parsed
  }

  private init(width: Int, height: Int, fullSize: PixelSize, scaleDenominator: Int, details: PhotoDetails) {
    (self.width, self.height, self.fullSize) = (width, height, fullSize)
    (self.scaleDenominator, self.details) = (scaleDenominator, details)
  }
}
