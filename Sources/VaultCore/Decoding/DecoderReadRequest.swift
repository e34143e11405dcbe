/// A read a helper asked for (`read`): an offset within the file and a count of at most
/// `DecoderInput.readLimit`, cut at the file's end. The parent checks it before it reads.
package struct DecoderReadRequest {
  let offset: Int64
  let count: Int

  package init?(_ payload: [UInt8], size: Int64) {
    guard
      let (offset, count) = payload.withUnsafeBytes({ buffer -> (Int64, UInt32)? in
        var reader = ByteReader(buffer)
        guard let offset = reader.integer(in: 0...max(0, size)), let count = reader.uint32(),
          reader.remaining == 0
        else { return nil }
        return (offset, count)
      }), count <= DecoderInput.readLimit
    else { return nil }
    (self.offset, self.count) = (offset, Int(min(Int64(count), size - offset)))
  }

  /// The bytes asked for, read with `read` (fewer at the end of the file).
  func perform(_ read: (Int64, UnsafeMutableRawBufferPointer) throws -> Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let got = try bytes.withUnsafeMutableBytes {
        try read(offset + Int64(filled), UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
      }
      if got <= 0 { break }
      filled += got
    }
    // Cut in place: a shorter copy would leave these plaintext bytes freed unwiped.
    bytes.removeLast(count - filled)
    return bytes
  }
}
