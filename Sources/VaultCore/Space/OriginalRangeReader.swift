/// A photo's original opened for reading any byte range of it without decrypting the rest
/// (the video player, `vault mount`): in a version-3 blob only the 64 KiB chunks that cover
/// a range are read and authenticated. Not thread-safe: one reader per thread.
public final class OriginalRangeReader {
  /// The original's size in bytes.
  public let size: Int64
  private let reader: OriginalBlobReader

  init(_ reader: OriginalBlobReader) {
    self.reader = reader
    size = reader.record.bytes
  }

  /// Copies up to `buffer.count` bytes from `offset` into `buffer`; the count copied, short
  /// only at the end of the original. Throws `damagedBlob` naming the photo for a chunk that
  /// does not authenticate. The caller wipes `buffer` when done with it.
  public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    try reader.read(at: offset, into: buffer)
  }
}
