import CVaultSystem
import Foundation

/// Shared memory a helper writes a picture's or a frame's pixels into (a memfd sealed
/// against shrinking and growing, so that reading it never faults), mapped read-only here
/// for as long as it lives. A worker keeps one for picture after picture: a fresh memfd
/// costs every page its allocation, zeroing and a fault on each side, which made paging
/// through photos in `view` tens of milliseconds slower a photo than decoding in-process.
final class SharedPixelMemory {
  let descriptor: Int32
  /// Its size in bytes: a picture of at most this many bytes of pixels fits.
  let capacity: Int
  private let mapping: UnsafeMutableRawPointer

  /// Makes shared memory of exactly `capacity` bytes; nil (errno set) when it cannot.
  init?(capacity: Int) {
    let descriptor = vault_make_sealed_memory(UInt(capacity))
    guard descriptor >= 0 else { return nil }
    guard let mapping = mmap(nil, capacity, PROT_READ, MAP_SHARED, descriptor, 0), mapping != MAP_FAILED
    else {
      let saved = errno
      close(descriptor)
      errno = saved
      return nil
    }
    (self.descriptor, self.capacity, self.mapping) = (descriptor, capacity, mapping)
  }

  deinit {
    munmap(mapping, capacity)
    close(descriptor)
  }

  /// The first `count` bytes (at most `capacity`), copied out once. A helper may still
  /// write while they are copied: what comes out is pixels, never parsed.
  func copy(count: Int) -> [UInt8] {
    precondition(count <= capacity, "more pixels than the shared memory holds")
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: mapping, byteCount: count)
      initialized = count
    }
  }
}
