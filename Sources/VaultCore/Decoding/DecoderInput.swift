/// The bytes of a file a helper reads: held whole by the parent (sent with the request, or
/// as sealed memory's descriptor), through a file's descriptor, or read by range as the
/// helper asks (an upload's encrypted temporary blob, a stored original decrypted a chunk at
/// a time).
package enum DecoderInput {
  case bytes(PinnedBytes)
  /// A file being imported, held whole: the sealed memory's descriptor goes to the helper.
  case sealed(SealedFileCopy)
  /// A file being imported, too large to hold: its read-only descriptor goes to the helper.
  case file(SourceFile)
  /// `read` copies from an offset into a buffer and returns the count copied (0 at the end).
  case ranges(size: Int64, read: (Int64, UnsafeMutableRawBufferPointer) throws -> Int)

  package var delivery: DecoderRequest.Delivery {
    switch self {
    case .bytes: return .bytes
    case .sealed, .file: return .descriptor
    case .ranges: return .ranges
    }
  }

  package var size: Int64 {
    switch self {
    case .bytes(let bytes): return Int64(bytes.count)
    case .sealed(let copy): return Int64(copy.count)
    case .file(let file): return file.size
    case .ranges(let size, _): return size
    }
  }

  /// A stored original read through `reader`.
  package static func ranges(_ reader: OriginalRangeReader) -> DecoderInput {
    .ranges(size: reader.size, read: { try reader.read(at: $0, into: $1) })
  }

  /// The most bytes one `read` may ask for.
  package static let readLimit = 1 << 20

  /// How the file goes: bytes over `DecoderFrame.fileLimit` (an original shown that is
  /// larger) are read by range from where they lie instead.
  package var sendable: DecoderInput {
    guard case .bytes(let bytes) = self, bytes.count > DecoderFrame.fileLimit else { return self }
    return .ranges(size: Int64(bytes.count)) { offset, buffer in
      let count = min(buffer.count, bytes.count - Int(offset))
      guard count > 0 else { return 0 }
      buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + Int(offset), byteCount: count)
      return count
    }
  }
}
