import CVaultSandbox
import Foundation

/// The helper's confinement (docs/SECURITY.md, "Hostile files"), and the test-only faults that show
/// it holds.
enum Sandbox {
  /// Sets the limits and the seccomp filter; returns why it could not, or nil.
  static func enter(memoryBytes: UInt64, cpuSeconds: UInt64, socket: Int32) -> String? {
    // A failed allocation leaves less than a quarter of the memory a decode may take: a
    // death with more room than that is not called a memory one.
    guard vault_sandbox_report_deaths(socket, memoryBytes / 4) == 0 else {
      return "cannot install its handlers"
    }
    // One more than the socket: the descriptor of a file being imported, received with its
    // request and closed after it.
    var limits = vault_sandbox_limits(
      memory_bytes: memoryBytes, cpu_seconds: cpuSeconds, highest_descriptor: socket + 1)
    var failure: UnsafePointer<CChar>?
    guard vault_sandbox_enter(&limits, &failure) == 0 else {
      return failure.map { String(cString: $0) } ?? "unknown"
    }
    return nil
  }

  /// Loops without a system call, as a decoder caught in a crafted file would.
  static func spin() {
    var counter: UInt64 = 0
    while true {
      counter = counter &* 6_364_136_223_846_793_005 &+ 1
      if counter == 42 { print(counter) }
    }
  }

  /// Allocates and touches 16 MiB after 16 MiB until an allocation fails.
  static func exhaustMemory() {
    var held: [UnsafeMutableRawPointer] = []
    while let block = malloc(16 << 20) {
      memset(block, 1, 16 << 20)
      held.append(block)
    }
    // malloc returned NULL: the address space is full; die as a decoder's failed
    // allocation would.
    abort()
  }
}
