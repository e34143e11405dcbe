extension SnapshotBytes {
  /// The UTF-8 bytes of the name of the `added` entry at `added`, read alone: they follow
  /// its import time, after their count (two bytes, big-endian; docs/FORMAT.md).
  func withNameBytes<T>(added: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
    withBytes { buffer in
      let start = added + Self.importedAtOffset + 12
      let count = Int(UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: start, as: UInt16.self)))
      return body(UnsafeRawBufferPointer(rebasing: buffer[start + 2..<start + 2 + count]))
    }
  }
}
