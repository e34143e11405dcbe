/// What a decoder helper read of a file being imported (by `add` or as an upload): its
/// thumbnail, its details and Apple's Live Photo identifier. Its record is assembled here,
/// from that and what the import knows of the source, the one way for both.
struct DecodedImport {
  let thumbnail: Thumbnail
  let details: PhotoDetails
  let liveIdentifier: String?

  init(thumbnail: Thumbnail, details: PhotoDetails, liveIdentifier: String?) {
    self.thumbnail = thumbnail
    self.details = details
    self.liveIdentifier = liveIdentifier
  }

  /// What a helper is asked for every file an import stores.
  static func request(
    format: ImageFormat, name: String, size: Int64, input: DecoderInput, thumbnailer: Thumbnailer
  ) -> DecoderRequest {
    DecoderRequest(
      wants: [.thumbnail, .details, .liveIdentifier], thumbnailer: thumbnailer, format: format, name: name,
      size: size, delivery: input.delivery)
  }

  /// Has a helper of `decoders` read `input`, the file of `format` named `name`.
  static func read(
    _ input: DecoderInput, format: ImageFormat, name: String, size: Int64, decoders: DecoderPool,
    thumbnailer: Thumbnailer
  ) throws -> DecodedImport {
    let request = request(format: format, name: name, size: size, input: input, thumbnailer: thumbnailer)
    return try DecodedImport(
      try decoders.analyse(request, input: input, name: name), thumbnailer: thumbnailer)
  }

  /// The thumbnail encoded from what the helper answered to `request`'s three wants.
  init(_ analysis: DecoderAnalysis, thumbnailer: Thumbnailer) throws {
    // The helper answered all three, as asked (DecoderAnalysis checks it).
    thumbnail = try thumbnailer.encode(analysis.thumbnail!)
    details = analysis.details!
    liveIdentifier = analysis.liveIdentifier
  }

  /// The record of the photo stored under `id` from a file `name` of `bytes` bytes whose
  /// content has the keyed hash `contentHash`, last changed at `modifiedAt`.
  func record(
    id: BlobID, name: String, bytes: Int64, format: ImageFormat, modifiedAt: Timestamp, contentHash: String
  ) -> PhotoRecord {
    thumbnail.videoFactsApplied(
      to: details.applied(
        to: PhotoRecord(
          id: id, name: name, bytes: bytes, format: format, width: thumbnail.width, height: thumbnail.height,
          orientation: thumbnail.orientation, modifiedAt: modifiedAt, importedAt: .now(),
          contentHash: contentHash)))
  }
}
