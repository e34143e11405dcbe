import Foundation
import VaultCore

/// The helper's side of the shared memory pixels go through (docs/DECODER.md, `buffer`):
/// it asks the parent for room (`needBuffer`), and keeps the memory the parent says to keep
/// mapped from picture to picture, so that a picture costs neither a new mapping nor the
/// faults of fresh pages. The parent decides what is kept; this side only checks that what
/// it is told to write into is there and large enough.
package final class SharedPixelTarget {
  private var kept: (memory: UnsafeMutableRawPointer, size: Int)?

  package init() {}

  deinit {
    if let kept { munmap(kept.memory, kept.size) }
  }

  /// Writes `pixels` into the shared memory the parent hands over (or says to reuse), then
  /// wipes them here.
  func write(_ pixels: [UInt8], on channel: DecoderChannel, name: String) throws {
    let count = pixels.count
    var size = ByteWriter()
    size.int64(Int64(count))
    try channel.send(DecoderFrame(.needBuffer, size.output), deadline: nil)
    let reply = try channel.receive(limit: 16)
    let descriptor = channel.takeDescriptor()
    guard reply.kind == .buffer, reply.payload.count == 1,
      let handOver = SharedMemoryHandOver(rawValue: reply.payload[0]),
      (descriptor == nil) == (handOver == .reuse)
    else {
      if let descriptor { close(descriptor) }
      throw DecoderChannel.Failure.malformed
    }
    let target: (memory: UnsafeMutableRawPointer, size: Int)
    if let descriptor {
      target = try Self.map(descriptor, holding: count, name: name)
    } else {
      guard let kept, kept.size >= count else { throw DecoderChannel.Failure.malformed }
      target = kept
    }
    pixels.withUnsafeBytes { target.memory.copyMemory(from: $0.baseAddress!, byteCount: count) }
    pixels.wipeShared()
    switch handOver {
    case .reuse: break
    case .keep:
      if let kept { munmap(kept.memory, kept.size) }
      kept = target
    case .once: munmap(target.memory, target.size)
    }
  }

  /// Maps the shared memory `descriptor` names, whole, and closes the descriptor; it must
  /// hold at least `count` bytes.
  private static func map(_ descriptor: Int32, holding count: Int, name: String) throws
    -> (memory: UnsafeMutableRawPointer, size: Int)
  {
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_size >= count else {
      throw DecoderChannel.Failure.malformed
    }
    let size = Int(status.st_size)
    guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0),
      memory != MAP_FAILED
    else { throw VaultError.decoderRefused(path: name, reason: "no shared memory for the picture") }
    return (memory, size)
  }
}
