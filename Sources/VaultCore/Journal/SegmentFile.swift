import Foundation

/// Linux's SEEK_DATA and SEEK_HOLE, which Swift's Glibc does not import (glibc defines them
/// only under _GNU_SOURCE).
private let seekData: Int32 = 3
private let seekHole: Int32 = 4

/// A journal segment opened to be read piece by piece (`JournalSegment.read`): memory is
/// taken for what is asked and the file holds, never for the size the file claims, and a
/// run of zeros that the file system keeps as a hole (a sparse file) is passed over
/// without being read.
final class SegmentFile {
  let path: String
  /// The file's size when it was opened.
  let size: Int
  private let descriptor: Int32

  init(path: String) throws {
    (descriptor, size) = try openVaultFileAndSize(path)
    self.path = path
  }

  deinit {
    close(descriptor)
  }

  /// The `count` bytes at `offset`, which the caller has checked lie within `size`.
  func bytes(at offset: Int, count: Int) throws -> [UInt8] {
    var result = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let read = result.withUnsafeMutableBytes { buffer in
        pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
      }
      if read < 0 {
        if errno == EINTR { continue }
        throw VaultError.posix(path)
      }
      if read == 0 { throw VaultError.io(path: path, reason: "it was cut short while it was read") }
      done += read
    }
    return result
  }

  /// Whether a hole (a run of blocks never written, which the file system shows as zeros)
  /// begins between `offset` and `end`. False where the file system cannot tell.
  func hasHole(from offset: Int, before end: Int) -> Bool {
    let hole = lseek(descriptor, off_t(offset), seekHole)
    return hole >= 0 && Int(hole) < end
  }

  /// Whether every byte from `offset` to the end is zero: holes are skipped (SEEK_DATA), and
  /// data is read 64 KiB at a time, up to its first byte that is not zero.
  func isZero(from offset: Int) throws -> Bool {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var position = offset
    while position < size {
      let data = lseek(descriptor, off_t(position), seekData)
      // ENXIO: nothing but holes from here to the end. Another error: a file system that
      // cannot tell, read on.
      if data < 0, errno == ENXIO { return true }
      position = max(position, Int(data))
      let hole = lseek(descriptor, off_t(position), seekHole)
      let dataEnd = Int(hole) > position ? min(size, Int(hole)) : size
      while position < dataEnd {
        let wanted = min(buffer.count, dataEnd - position)
        let read = buffer.withUnsafeMutableBytes {
          pread(descriptor, $0.baseAddress!, wanted, off_t(position))
        }
        if read < 0 {
          if errno == EINTR { continue }
          throw VaultError.posix(path)
        }
        if read == 0 { return true }
        if buffer[0..<read].contains(where: { $0 != 0 }) { return false }
        position += read
      }
    }
    return true
  }
}
