import Foundation

/// The MD5 of a vault file's bytes (a ciphertext): what backends keep of a file, so that
/// vault can check a remote copy against it without a download.
enum FileMD5 {
  static let chunkSize = 1 << 20

  /// The size and MD5 of the file at `path`, read through; nil when it is not there (a
  /// blob deleted for good since it was listed).
  static func of(_ path: String) throws -> (size: Int64, md5: String)? {
    guard let descriptor = try openIfPresent(path) else { return nil }
    defer { close(descriptor) }
    let hasher = MD5Hasher()
    let size = try readChunks(descriptor, path: path) { hasher.update($0) }
    return (size, hasher.hexDigest())
  }

  /// Copies the file at `source` to a new file at `target` (mode 0600) with the source's
  /// modification time, and returns the size and MD5 of what it copied: a journal file
  /// captured under the space's lock. Nil when `source` is not there.
  static func copy(_ source: String, to target: String) throws -> (size: Int64, md5: String)? {
    guard let input = try openIfPresent(source) else { return nil }
    defer { close(input) }
    let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard output >= 0 else { throw VaultError.posix(target) }
    defer { close(output) }
    let hasher = MD5Hasher()
    let size = try readChunks(input, path: source) { chunk in
      hasher.update(chunk)
      try writeAll(output, chunk, path: target)
    }
    var status = stat()
    guard fstat(input, &status) == 0 else { throw VaultError.posix(source) }
    var times = [status.st_atim, status.st_mtim]
    guard futimens(output, &times) == 0 else { throw VaultError.posix(target) }
    return (size, hasher.hexDigest())
  }

  /// `openVaultFile`, or nil when nothing is at `path`.
  private static func openIfPresent(_ path: String) throws -> Int32? {
    do {
      return try openVaultFile(path)
    } catch {
      if !fileExists(path) { return nil }
      throw error
    }
  }

  /// Hands over the bytes of `descriptor` chunk by chunk; returns how many there were.
  private static func readChunks(
    _ descriptor: Int32, path: String, _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws -> Int64 {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
    defer { buffer.deallocate() }
    var total: Int64 = 0
    while true {
      let count = readFully(descriptor, into: buffer.baseAddress!, count: chunkSize)
      guard count >= 0 else { throw VaultError.posix(path) }
      if count > 0 { try body(UnsafeRawBufferPointer(rebasing: buffer[..<count])) }
      total += Int64(count)
      if count < chunkSize { return total }
    }
  }

  private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
    var written = 0
    while written < bytes.count {
      let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { throw VaultError.posix(path) }
      written += count
    }
  }
}
