/// How `vault mount` opens photos' originals, on FUSE's threads (it reads only the blobs and
/// the key): each open file's blob once (`blob(of:)`), read ahead in big windows, and as
/// many readers of ranges over it as the kernel has reads of that file at once.
package struct OriginalOpener: Sendable {
  let blobs: SpaceBlobs

  /// The blob of `record`'s original, for all the readers of one open file.
  package func blob(of record: PhotoRecord) throws -> any BlobSource {
    try blobs.originalBlobReadingAhead(record)
  }

  /// A reader of ranges of `record`'s original in `blob` (from `blob(of:)`); its record is
  /// checked when a read first reaches the original's end.
  package func ranges(of record: PhotoRecord, in blob: any BlobSource) throws -> OriginalRangeReader {
    try blobs.originalRanges(of: record, recordCheckedAtEnd: true, in: blob)
  }
}
