import CSodium
import Foundation

/// A fixed-size secret held in `sodium_malloc`'d memory: guarded pages, locked against
/// swapping, and zeroed when released.
public final class SecureBytes {
  public let count: Int
  let pointer: UnsafeMutableRawPointer

  /// Allocates `count` zero bytes.
  public init(count: Int) {
    Sodium.ensureInitialized()
    precondition(count > 0)
    // It fails only when the process is out of memory (or mappings), which Swift's own
    // allocations treat as fatal too.
    guard let memory = sodium_malloc(count) else {
      fatalError("sodium_malloc failed for \(count) bytes")
    }
    self.count = count
    self.pointer = memory
    sodium_memzero(memory, count)
  }

  /// Copies `bytes` into secure memory; the caller wipes its own copy.
  public convenience init(copying bytes: UnsafeRawBufferPointer) {
    self.init(count: max(bytes.count, 1))
    if bytes.count > 0 { pointer.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
  }

  /// Secure memory for a C state struct of `byteCount` bytes that needs `alignment`:
  /// sodium_malloc puts a buffer flush against its guard page, so its address is aligned
  /// only as far as its size is a multiple of the alignment.
  static func state(byteCount: Int, alignment: Int = 64) -> SecureBytes {
    let rounded = (byteCount + alignment - 1) / alignment * alignment
    let memory = SecureBytes(count: rounded)
    precondition(Int(bitPattern: memory.pointer) % alignment == 0, "sodium_malloc gave unaligned memory")
    return memory
  }

  /// A buffer of `count` random bytes.
  public static func random(count: Int) -> SecureBytes {
    let secret = SecureBytes(count: count)
    randombytes_buf(secret.pointer, count)
    return secret
  }

  deinit {
    sodium_free(pointer)  // wipes the bytes first
  }

  var bytes: UnsafePointer<UInt8> { UnsafePointer(pointer.assumingMemoryBound(to: UInt8.self)) }
  var mutableBytes: UnsafeMutablePointer<UInt8> { pointer.assumingMemoryBound(to: UInt8.self) }

  /// Compares in constant time.
  func isEqual(to other: SecureBytes) -> Bool {
    count == other.count && sodium_memcmp(pointer, other.pointer, count) == 0
  }
}

extension Data {
  /// Overwrites the bytes with zeros (for encoded plaintext such as the index's JSON).
  mutating func wipe() {
    withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
  }
}

extension Array where Element == UInt8 {
  /// Overwrites the array's bytes with zeros (for short-lived plaintext copies).
  public mutating func wipe() {
    let count = self.count
    withUnsafeMutableBytes { sodium_memzero($0.baseAddress, count) }
  }

  /// Overwrites the bytes with zeros in the buffer itself, even while another array shares
  /// it: for bytes that are being let go (a picture sent to the terminal), where `wipe()`
  /// would copy the shared buffer and zero only the copy.
  public func wipeShared() {
    withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else { return }
      sodium_memzero(UnsafeMutableRawPointer(mutating: base), buffer.count)
    }
  }
}
