import Foundation

/// A blob's file in the vault, read by place (`pread`); its length is the file's when it
/// was opened. Closed when it goes.
package final class LocalBlobFile: BlobSource {
  package let length: Int
  private let descriptor: Int32

  /// Opens the blob file at `path` (see `openVaultFile`); throws `.io` naming it.
  package init(path: String) throws {
    (descriptor, length) = try openVaultFileAndSize(path)
  }

  /// Opens the blob file at `path`, where a failure is damage to the blob `what` names
  /// (its file is missing, or cannot be opened).
  package static func open(_ path: String, what: String) throws -> LocalBlobFile {
    do {
      return try LocalBlobFile(path: path)
    } catch VaultError.io(_, let reason) {
      throw VaultError.damagedBlob(what: what, reason: fileExists(path) ? reason : "its file is missing")
    }
  }

  deinit { close(descriptor) }

  /// Whether `other` (a descriptor) is open on the very file this one reads.
  func isSameFile(as other: Int32) -> Bool {
    var mine = stat()
    var theirs = stat()
    guard fstat(descriptor, &mine) == 0, fstat(other, &theirs) == 0 else { return false }
    return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
  }

  package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    var total = 0
    while total < buffer.count {
      let count = pread(descriptor, buffer.baseAddress! + total, buffer.count - total, off_t(offset + total))
      if count < 0 {
        if errno == EINTR { continue }
        throw BlobReadFailure(String(cString: strerror(errno)))
      }
      if count == 0 { break }
      total += count
    }
    return total
  }
}
