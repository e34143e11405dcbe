import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// The shared memory pictures come through is kept by a worker and its helper from picture
/// to picture (a fresh memfd a picture made paging in `view` slower), replaced when a
/// larger picture needs more, never kept when it is too large, and the helper writes only
/// into memory it was handed that is large enough.
final class SharedPixelMemoryTests: XCTestCase {
  private static let memfdName = "memfd:vault-picture"

  /// The shared memory the helper `pid` has mapped and written, in bytes (its maps are
  /// not readable: the helper is not dumpable).
  private static func helperSharedBytes(_ pid: pid_t) throws -> Int? {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = status.split(separator: "\n").first { $0.hasPrefix("RssShmem:") }
    return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }.map { $0 << 10 }
  }

  private static func pagesOf(_ count: Int) -> Int { (count + 4095) / 4096 * 4096 }

  private static func jpeg(width: Int, height: Int) throws -> [UInt8] {
    try JPEGEncoder.encode(TestImages.photoLike(width: width, height: height), quality: 80)
  }

  func testPicturesInARowReuseTheSharedMemoryTheWorkerKeeps() throws {
    // 64 MiB: memory up to 8 MiB is kept; the 2000 × 1500 picture's 9 MB is not.
    let worker = try DecoderWorker(limits: DecoderLimits(memoryMiB: 64))
    let small = try Self.jpeg(width: 40, height: 30)
    let larger = try Self.jpeg(width: 200, height: 150)
    let tooLarge = try Self.jpeg(width: 2000, height: 1500)
    // What stays mapped in the helper after each: the larger picture's memory is kept for
    // the small one, and the too large one's is let go.
    let kept = [40 * 30 * 3] + [Int](repeating: 200 * 150 * 3, count: 5)
    for (index, bytes) in [small, larger, small, tooLarge, small, larger].enumerated() {
      let name = "picture-\(index).jpg"
      let here = try PhotoDecoder.decode(
        PlaintextBytes(bytes), format: .jpeg, name: name, minimumSize: nil, limits: Thumbnailer())
      let request = DecoderRequest(
        wants: [.picture], thumbnailer: Thumbnailer(), format: .jpeg, name: name, size: 0, delivery: .bytes)
      let there = try worker.picture(request, input: .bytes(PinnedBytes(bytes)), name: name)
      XCTAssertEqual(there.image, here.image, name)
      XCTAssertEqual(FakeDecoderHelper.openDescriptors(naming: Self.memfdName).count, 1, name)
      XCTAssertEqual(try Self.helperSharedBytes(worker.pid), Self.pagesOf(kept[index]), name)
    }
    worker.retire()
    XCTAssertEqual(FakeDecoderHelper.openDescriptors(naming: Self.memfdName), [])
  }

  /// The helper's side against a parent that breaks the protocol: told to reuse memory it
  /// never kept, handed none where it should be, or handed too little, it writes nothing.
  func testTheHelperWritesOnlyIntoMemoryLargeEnoughThatItWasHanded() throws {
    let pixels = [UInt8](repeating: 7, count: 300)
    let cases: [(SharedMemoryHandOver, Int?)] = [(.reuse, nil), (.keep, nil), (.once, nil), (.keep, 299)]
    for (handOver, size) in cases {
      var sockets: [Int32] = [-1, -1]
      XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets), 0)
      defer { for descriptor in sockets { close(descriptor) } }
      let parent = DecoderChannel(descriptor: sockets[0])
      let helper = DecoderChannel(descriptor: sockets[1], acceptsDescriptors: true)
      let memory = size.flatMap { SharedPixelMemory(capacity: $0) }
      try parent.send(
        DecoderFrame(.buffer, [handOver.rawValue]), descriptor: memory?.descriptor, deadline: nil)
      XCTAssertThrowsError(
        try SharedPixelTarget().write(pixels, on: helper, name: "x.jpg"), "\(handOver) \(size ?? 0)"
      ) { error in
        XCTAssertEqual(error as? DecoderChannel.Failure, .malformed)
      }
      XCTAssertEqual(try parent.receive().kind, .needBuffer)
      XCTAssertEqual(memory?.copy(count: 299).contains(7), size.map { _ in false })
    }
  }
}
