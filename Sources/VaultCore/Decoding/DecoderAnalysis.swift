/// What a helper read from a file (`analysis`): the thumbnail's pixels with the header's
/// facts, the details and the Live identifier, each when asked for. The parent reads it as
/// it reads any untrusted bytes: every size is bounded and every field checked, and it
/// encodes the thumbnail itself (`Thumbnailer.encode`), so nothing a helper wrote is ever
/// decoded where the keys are.
package struct DecoderAnalysis {
  package var thumbnail: ThumbnailPicture?
  package var details: PhotoDetails?
  package var liveIdentifier: String?

  /// The largest side a photo may claim (PNG's own limit).
  package static let sideLimit = Int64(Int32.max)
  package static let textLimit = 1024

  /// The largest `analysis` frame for thumbnails of at most `longSide` a side: their
  /// pixels, and 64 KiB for the facts (texts of at most `textLimit` bytes).
  package static func frameLimit(longSide: Int) -> Int { longSide * longSide * 3 + (64 << 10) }

  package var payload: [UInt8] {
    var writer = ByteWriter()
    // Room for it all at once: a buffer outgrown would be freed, pixels and all, unwiped.
    writer.output.reserveCapacity((thumbnail?.image.pixels.count ?? 0) + (64 << 10))
    writer.optional(thumbnail) { $1.encode(into: &$0) }
    writer.optional(details) { $1.encode(into: &$0) }
    writer.optional(liveIdentifier) { $0.text($1) }
    return writer.output
  }

  package init(thumbnail: ThumbnailPicture?, details: PhotoDetails?, liveIdentifier: String?) {
    (self.thumbnail, self.details, self.liveIdentifier) = (thumbnail, details, liveIdentifier)
  }

  /// The analysis in a frame's payload; nil when a field is out of bounds or missing.
  package init?(payload: [UInt8], answering request: DecoderRequest) {
    let parsed: DecoderAnalysis? = payload.withUnsafeBytes { buffer in
      var reader = ByteReader(buffer)
      guard
        let thumbnail = reader.optional({
          ThumbnailPicture(decoding: &$0, longSide: request.thumbnailer.longSide)
        }),
        let details = reader.optional({ PhotoDetails(decoding: &$0) }),
        let live = reader.optional({ $0.text(limit: Self.textLimit) }), reader.remaining == 0,
        (thumbnail != nil) == request.wants.contains(.thumbnail),
        (details != nil) == request.wants.contains(.details)
      else { return nil }
      if let live, !Self.isRecordable(liveIdentifier: live) { return nil }
      return DecoderAnalysis(thumbnail: thumbnail, details: details, liveIdentifier: live)
    }
    guard let parsed else { return nil }
    self = parsed
  }

  /// Whether `liveIdentifier` is one a journal can record: the helper, which does not see
  /// the journal's entries, sends no other.
  package static func isRecordable(liveIdentifier: String) -> Bool {
    JournalEntry.isRecordableLiveIdentifier(liveIdentifier)
  }
}

extension ThumbnailPicture {
  package func encode(into writer: inout ByteWriter) {
    for side in [image.width, image.height, width, height] { writer.uint32(UInt32(side)) }
    writer.byteString(image.pixels)
    writer.byte(UInt8(orientation))
    writer.optional(warning) { $0.text($1) }
    writer.optional(durationMicroseconds) { $0.int64($1) }
    writer.optional(codec) { $0.text($1) }
  }

  /// A thumbnail as `encode` wrote it: its sides within `longSide`, then exactly their
  /// pixels (the count is checked against the sides before a byte of them is copied), the
  /// photo's sides within PNG's limit, and an orientation of EXIF's.
  package init?(decoding reader: inout ByteReader, longSide: Int) {
    guard let thumbnailWidth = reader.uint32(), let thumbnailHeight = reader.uint32(),
      (1...longSide).contains(Int(thumbnailWidth)), (1...longSide).contains(Int(thumbnailHeight)),
      let width = reader.uint32(), let height = reader.uint32(),
      (1...DecoderAnalysis.sideLimit).contains(Int64(width)),
      (1...DecoderAnalysis.sideLimit).contains(Int64(height)),
      case let count = Int(thumbnailWidth) * Int(thumbnailHeight) * 3,
      let pixels = reader.byteString(limit: count), pixels.count == count,
      let orientation = reader.byte(), (1...8).contains(orientation),
      let warning = reader.optional({ $0.text(limit: DecoderAnalysis.textLimit) }),
      let duration = reader.optional({ $0.integer(in: 0...Int64.max) }),
      let codec = reader.optional({ $0.text(limit: 64) })
    else { return nil }
    self.init(
      image: RGBImage(width: Int(thumbnailWidth), height: Int(thumbnailHeight), pixels: pixels),
      width: Int(width), height: Int(height), orientation: Int(orientation), warning: warning,
      durationMicroseconds: duration, codec: codec)
  }
}

extension PhotoDetails {
  package func encode(into writer: inout ByteWriter) {
    writer.optional(taken) { writer, taken in
      writer.int64(taken.localSeconds)
      writer.uint32(UInt32(bitPattern: taken.nanoseconds))
      writer.optional(taken.utcOffsetMinutes) { $0.uint16(UInt16(bitPattern: $1)) }
    }
    writer.optional(cameraMake) { $0.text($1) }
    writer.optional(cameraModel) { $0.text($1) }
  }

  /// Details as `encode` wrote them, with a make and model no longer than EXIF's are kept
  /// (`textLimit`) and a time whose fraction is under a second and offset under a day.
  package init?(decoding reader: inout ByteReader) {
    guard
      let taken = reader.optional({ reader -> CaptureTime? in
        guard let seconds = reader.int64(), let nanoseconds = reader.uint32(), nanoseconds < 1_000_000_000,
          let offset = reader.optional({ $0.uint16().map { Int16(bitPattern: $0) } }),
          abs(Int(offset ?? 0)) < 24 * 60
        else { return nil }
        return CaptureTime(localSeconds: seconds, nanoseconds: Int32(nanoseconds), utcOffsetMinutes: offset)
      }),
      let make = reader.optional({ $0.text(limit: Self.textLimit) }),
      let model = reader.optional({ $0.text(limit: Self.textLimit) })
    else { return nil }
    self.init(taken: taken, cameraMake: make, cameraModel: model)
  }
}
