/// The plaintext of a thumbnail's blob (docs/FORMAT.md, "Thumbnail blobs"): in version 2,
/// the JPEG's length (4 bytes, big-endian), the JPEG, then padding; in version 1, the JPEG
/// alone.
package enum ThumbnailBlob {
  /// Thumbnails are small; a larger one is damage, not a thumbnail.
  static let sizeLimit = 64 << 20

  package static func write(_ jpeg: [UInt8], to writer: BlobWriter) throws {
    try LengthPrefixedPayload.write(jpeg, to: writer)
  }

  /// The JPEG in `reader`'s blob, after checking the blob through to its end. The caller
  /// wipes the result.
  static func read(from reader: BlobReader) throws -> [UInt8] {
    if reader.version == BlobFormat.unpaddedVersion {
      return try reader.readToEnd(limit: sizeLimit)
    }
    return try LengthPrefixedPayload.read(from: reader, limit: sizeLimit)
  }
}
