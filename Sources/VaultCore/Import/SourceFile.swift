import Foundation

/// A file being imported, opened once: its bytes are hashed, encrypted and decoded
/// through this one descriptor (or from bytes read through it), so that replacing the
/// path meanwhile (a symlink flipped to another photo) cannot mix two files in one photo.
package final class SourceFile {
  package let path: String
  package let size: Int64
  package let modifiedAt: Timestamp
  /// When its inode last changed (ctime): every write sets it, and no call sets it back.
  private let changedAt: Timestamp
  package let descriptor: Int32

  /// Opens `path` without blocking (a FIFO with no writer would block a plain open
  /// forever) and accepts only a regular file.
  package init(path: String) throws {
    self.path = path
    descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
    guard descriptor >= 0 else { throw VaultError.posix(path) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      let error = VaultError.posix(path)
      close(descriptor)
      throw error
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      throw VaultError.io(path: path, reason: "not a regular file")
    }
    // O_NONBLOCK means nothing to a regular file's reads; cleared all the same.
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    size = Int64(info.st_size)
    (modifiedAt, changedAt) = Self.times(info)
  }

  /// The file whose descriptor vault handed a decoder helper (which cannot open one):
  /// taken over, and accepted only if it is a regular file; `path` names it in errors.
  package init(descriptor: Int32, path: String) throws {
    self.path = path
    self.descriptor = descriptor
    var info = stat()
    guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      close(descriptor)
      throw VaultError.io(path: path, reason: "not a regular file")
    }
    size = Int64(info.st_size)
    (modifiedAt, changedAt) = Self.times(info)
  }

  deinit {
    close(descriptor)
  }

  private static func times(_ info: stat) -> (modified: Timestamp, changed: Timestamp) {
    (
      Timestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int32(info.st_mtim.tv_nsec)),
      Timestamp(seconds: Int64(info.st_ctim.tv_sec), nanoseconds: Int32(info.st_ctim.tv_nsec))
    )
  }

  /// Throws when the file was written since it was opened: its size, the time of its last
  /// modification or that of its inode's last change is not what it was. What was read
  /// through the descriptor before (the bytes stored, and those a decoder helper read for
  /// the thumbnail) is then one version of the file.
  package func checkUnchanged() throws {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw VaultError.posix(path) }
    let (modified, changed) = Self.times(info)
    guard Int64(info.st_size) == size, modified == modifiedAt, changed == changedAt else {
      throw VaultError.io(path: path, reason: "file changed while it was being imported")
    }
  }

  package func readPrefix(_ count: Int) throws -> [UInt8] {
    var buffer = [UInt8](repeating: 0, count: count)
    let read = pread(descriptor, &buffer, count, 0)
    guard read >= 0 else { throw VaultError.posix(path) }
    return Array(buffer[0..<read])
  }

  /// The whole file, read once into memory that C decoders can read too. The file must
  /// still have the size it had when opened.
  package func readAll() throws -> PinnedBytes {
    let bytes = PinnedBytes(count: Int(size))
    try readAll(into: UnsafeMutableRawBufferPointer(start: bytes.buffer.baseAddress, count: bytes.count))
    return bytes
  }

  /// Reads the whole file into `target`, which holds exactly `size` bytes; throws if the
  /// file no longer has that size.
  package func readAll(into target: UnsafeMutableRawBufferPointer) throws {
    precondition(target.count == Int(size), "a file is read whole into memory of another size")
    var offset = 0
    while offset < target.count {
      let count = pread(descriptor, target.baseAddress! + offset, target.count - offset, off_t(offset))
      if count < 0 {
        if errno == EINTR { continue }
        throw VaultError.posix(path)
      }
      if count == 0 { break }
      offset += count
    }
    try checkReadWhole(offset)
  }

  /// Throws unless `count` bytes read from the start were the whole file, as large as when
  /// it was opened: no fewer, and nothing after them.
  package func checkReadWhole(_ count: Int) throws {
    var extra: UInt8 = 0
    guard count == Int(size), pread(descriptor, &extra, 1, off_t(count)) == 0 else {
      throw VaultError.io(path: path, reason: "file changed while it was being imported")
    }
  }

  /// Reads the whole file from the start in 64 KiB pieces, handing each to `consume`;
  /// returns the keyed content hash.
  package func hash(key: SecureBytes, consume: (UnsafeRawBufferPointer) throws -> Void) throws -> String {
    let hasher = ContentHasher(key: key)
    var buffer = [UInt8](repeating: 0, count: 65536)
    defer { buffer.wipe() }
    var offset: off_t = 0
    while true {
      let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
      if count < 0 {
        if errno == EINTR { continue }
        throw VaultError.posix(path)
      }
      if count == 0 { break }
      try buffer.withUnsafeBytes { bytes in
        let piece = UnsafeRawBufferPointer(rebasing: bytes[0..<count])
        hasher.update(piece)
        try consume(piece)
      }
      offset += off_t(count)
    }
    return hasher.finish()
  }
}
