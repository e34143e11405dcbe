import CVaultSystem
import Foundation

/// A file being imported, read once into memory that no process can change afterwards (a
/// memfd sealed against writing, growing and shrinking), and mapped read-only here: `add`
/// hashes and encrypts these bytes, and hands the decoder helper their descriptor, so the
/// thumbnail and record are of the very bytes stored even if the file on disk changes
/// meanwhile (a write through a shared mapping, a FUSE file system answering each reader
/// differently), and the helper reads only what it needs instead of receiving a copy.
package final class SealedFileCopy {
  /// The sealed memory; a helper given it can read it, never change it.
  package let descriptor: Int32
  package let count: Int
  private let mapping: UnsafeMutableRawPointer

  /// Reads `source` (not empty) whole into new memory, then seals it and maps it read-only.
  /// `copyingInKernel` false reads it as on a file system that cannot copy it so (tests).
  package init(reading source: SourceFile, copyingInKernel: Bool = true) throws {
    precondition(source.size > 0, "an empty file has no bytes to hold")
    count = Int(source.size)
    descriptor = vault_make_sealable_memory("vault-import", UInt(count))
    guard descriptor >= 0 else {
      if errno == EFBIG { throw BeyondFileSizeLimit() }
      throw VaultError.posix(source.path)
    }
    do {
      try Self.fill(descriptor, count: count, from: source, inKernel: copyingInKernel)
      // Sealing fails while a writable shared mapping exists: `fill` has unmapped its own.
      guard vault_seal_contents(descriptor) == 0 else { throw VaultError.posix(source.path) }
      // Mapped with all its pages at once: hashing then takes no page fault.
      mapping = try Self.map(
        descriptor, count: count, protection: PROT_READ, flags: MAP_POPULATE, path: source.path)
    } catch {
      close(descriptor)
      throw error
    }
  }

  /// The file is larger than this process may make a file (`ulimit -f`, RLIMIT_FSIZE), which
  /// bounds a memfd too.
  package struct BeyondFileSizeLimit: Error {}

  deinit {
    munmap(mapping, count)
    close(descriptor)
  }

  /// The bytes read, as they stay.
  package var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: mapping, count: count) }

  /// Copies the file into the memory inside the kernel (one copy of its bytes, no buffer
  /// in between, no page zeroed first); where its file system cannot (no `splice`), reads
  /// it straight in through a writable mapping, unmapped after.
  private static func fill(_ descriptor: Int32, count: Int, from source: SourceFile, inKernel: Bool) throws {
    if inKernel {
      let copied = vault_copy_file(descriptor, source.descriptor, UInt(count))
      if copied >= 0 { return try source.checkReadWhole(copied) }
      guard errno == EINVAL || errno == ENOSYS else { throw VaultError.posix(source.path) }
    }
    let writable = try map(descriptor, count: count, protection: PROT_READ | PROT_WRITE, path: source.path)
    defer { munmap(writable, count) }
    try source.readAll(into: UnsafeMutableRawBufferPointer(start: writable, count: count))
  }

  private static func map(
    _ descriptor: Int32, count: Int, protection: Int32, flags: Int32 = 0, path: String
  ) throws -> UnsafeMutableRawPointer {
    guard let mapping = mmap(nil, count, protection, MAP_SHARED | flags, descriptor, 0), mapping != MAP_FAILED
    else {
      throw VaultError.posix(path)
    }
    return mapping
  }
}
