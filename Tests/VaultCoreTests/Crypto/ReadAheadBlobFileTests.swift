import Dispatch
import Foundation
import Synchronization
import VaultTestSupport
import XCTest

@testable import VaultCore

/// `ReadAheadBlobFile` gives back the file's bytes for any range, from several threads at
/// once, whether its windows are read with direct I/O, through the page cache, or (no
/// buffer free) not at all.
final class ReadAheadBlobFileTests: XCTestCase {
  var folder = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
  }

  func testRandomRangesFromSeveralThreadsReadTheFilesBytes() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    for round in 0..<12 {
      // Windows of one to three pages, a file of up to ten of them, 0 to 6 buffers.
      let buffers = WindowBuffers(
        size: WindowBuffers.alignment * Int.random(in: 1...3, using: &random),
        limit: Int.random(in: 0...6, using: &random))
      let bytes = (0..<Int.random(in: 1...10 * buffers.size, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      let path = "\(folder)/blob-\(round)"
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      let file = ReadAheadBlobFile(try LocalBlobFile(path: path), path: path, buffers: buffers)
      XCTAssertEqual(file.length, bytes.count, "seed \(seed)")
      let ranges = (0..<200).map { _ -> (Int, Int) in
        let offset = Int.random(in: 0...bytes.count, using: &random)
        return (offset, Int.random(in: 0...3 * buffers.size, using: &random))
      }
      let mismatches = Mutex(0)
      DispatchQueue.concurrentPerform(iterations: 4) { thread in
        for (offset, count) in ranges[(thread * 50)..<(thread * 50 + 50)] {
          var read = [UInt8](repeating: 0, count: count)
          let copied = try? read.withUnsafeMutableBytes { try file.read(at: offset, into: $0) }
          let expected = Array(bytes[offset..<min(bytes.count, offset + count)])
          if copied != expected.count || Array(read[0..<expected.count]) != expected {
            mismatches.withLock { $0 += 1 }
          }
        }
      }
      XCTAssertEqual(mismatches.withLock { $0 }, 0, "round \(round), seed \(seed)")
    }
  }

  func testAFileReadForwardInSmallPiecesReadsWhole() throws {
    let buffers = WindowBuffers(size: WindowBuffers.alignment, limit: ReadAheadBlobFile.kept)
    let bytes = (0..<20 * buffers.size).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 4096) }
    let path = "\(folder)/blob"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let file = ReadAheadBlobFile(try LocalBlobFile(path: path), path: path, buffers: buffers)
    var read = [UInt8]()
    var piece = [UInt8](repeating: 0, count: 1000)
    while true {
      let count = try piece.withUnsafeMutableBytes { try file.read(at: read.count, into: $0) }
      if count == 0 { break }
      read += piece[0..<count]
    }
    XCTAssertEqual(read, bytes)
  }
}

/// When a reader reads a window itself, the windows after it are asked for first, so that the
/// disk reads them together; the threads reading ahead do not ask for more in turn.
final class ReadAheadOrderTests: XCTestCase {
  func testTheNextWindowsAreAskedForBeforeAReaderReadsItsOwn() throws {
    let folder = try makeTemporaryFolder(self)
    let buffers = WindowBuffers(size: WindowBuffers.alignment, limit: ReadAheadBlobFile.kept)
    let path = "\(folder)/blob"
    try Data(repeating: 7, count: 20 * buffers.size).write(to: URL(fileURLWithPath: path))
    let secondWindowStarted = DispatchSemaphore(value: 0)
    let windowsRead = Mutex<[Int]>([])
    let file = ReadAheadBlobFile(try LocalBlobFile(path: path), path: path, buffers: buffers) { index in
      windowsRead.withLock { $0.append(index) }
      if index == 1 { secondWindowStarted.signal() }
      // The first window's read waits for the second's to start: it does only if the
      // second was asked for before (a minute stands for never).
      if index == 0 {
        XCTAssertEqual(
          secondWindowStarted.wait(timeout: .now() + 60), .success, "window 1 asked for before 0 is read")
      }
    }
    var byte = [UInt8](repeating: 0, count: 1)
    XCTAssertEqual(try byte.withUnsafeMutableBytes { try file.read(at: 0, into: $0) }, 1)
    file.waitForReadsAhead()
    file.waitForReadsAhead()
    XCTAssertEqual(
      windowsRead.withLock { $0.sorted() }, Array(0...ReadAheadBlobFile.depth),
      "the first window and the \(ReadAheadBlobFile.depth) after it, each once, none further")
  }
}
