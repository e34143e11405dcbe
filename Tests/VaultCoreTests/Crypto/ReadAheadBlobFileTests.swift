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
      // Windows of one to three pages, a file of up to ten of them, 0 to 6 buffers; in
      // every other round, a ramp of up to four windows of one page first.
      let buffers = WindowBuffers(
        size: WindowBuffers.alignment * Int.random(in: 1...3, using: &random),
        limit: Int.random(in: 0...6, using: &random))
      let layout =
        round % 2 == 0
        ? WindowLayout(buffers: buffers, windowsAhead: 3)
        : WindowLayout(
          small: WindowBuffers(size: WindowBuffers.alignment, limit: Int.random(in: 0...4, using: &random)),
          big: buffers, rampCount: Int.random(in: 0...4, using: &random), ahead: 3 * buffers.size)
      let bytes = (0..<Int.random(in: 1...10 * buffers.size, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      let path = "\(folder)/blob-\(round)"
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      let file = ReadAheadBlobFile(try LocalBlobFile(path: path), path: path, layout: layout)
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
    let buffers = WindowBuffers(size: WindowBuffers.alignment, limit: 6)
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
    let buffers = WindowBuffers(size: WindowBuffers.alignment, limit: 6)
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
      windowsRead.withLock { $0.sorted() }, Array(0...3),
      "the first window and the 3 after it, each once, none further")
  }
}

/// A file's windows: small ones from its start, then big ones, end to end, every byte in
/// exactly one; and what a read at its start asks for.
final class WindowLayoutTests: XCTestCase {
  func testWindowsLieEndToEndAndEachByteIsInTheWindowItsIndexNames() {
    for _ in 0..<200 {
      let small = WindowBuffers(size: WindowBuffers.alignment * Int.random(in: 1...4), limit: 4)
      let big = WindowBuffers(size: WindowBuffers.alignment * Int.random(in: 1...16), limit: 4)
      let layout = WindowLayout(
        small: small, big: big, rampCount: Int.random(in: 0...6),
        ahead: WindowBuffers.alignment * Int.random(in: 1...20))
      XCTAssertEqual(layout.start(of: 0), 0)
      for index in 0..<30 {
        XCTAssertEqual(layout.start(of: index + 1), layout.start(of: index) + layout.size(of: index))
        let offset = layout.start(of: index) + Int.random(in: 0..<layout.size(of: index))
        XCTAssertEqual(layout.index(of: offset), index)
        let length = Int.random(in: 1...40 * WindowBuffers.alignment)
        guard offset < length else { continue }
        let last = layout.lastAhead(after: index, length: length)
        XCTAssertGreaterThanOrEqual(last, index)
        XCTAssertLessThan(layout.start(of: last), max(length, layout.start(of: index) + 1), "within the file")
        if last > index {
          XCTAssertLessThan(
            layout.start(of: last), layout.start(of: index) + layout.size(of: index) + layout.ahead,
            "within ahead")
        }
      }
    }
  }

  /// The mount's: the first MiB in 256 KiB windows, then 1 MiB ones, 3 MiB ahead.
  func testTheMountReadsAPhotosStartInSmallWindows() throws {
    let layout = WindowLayout.mount
    XCTAssertEqual(
      (0...5).map { layout.size(of: $0) }, [1 << 18, 1 << 18, 1 << 18, 1 << 18, 1 << 20, 1 << 20])
    XCTAssertEqual(layout.index(of: (1 << 20) + 5), 4)
    // A 2.9 MiB photo: its first read asks for every window of it at once.
    let photo = 2_900_000
    XCTAssertEqual(layout.lastAhead(after: 0, length: photo), layout.index(of: photo - 1))
    XCTAssertEqual(layout.kept(of: layout.small), 4)
    XCTAssertEqual(layout.kept(of: layout.big), 6)
  }

  func testAReadAtTheStartReadsTheSmallWindowAloneThenAsksForWhatAheadCovers() throws {
    let folder = try makeTemporaryFolder(self)
    let path = "\(folder)/blob"
    let page = WindowBuffers.alignment
    try Data(repeating: 3, count: 40 * page).write(to: URL(fileURLWithPath: path))
    let windowsRead = Mutex<[Int]>([])
    let layout = WindowLayout(
      small: WindowBuffers(size: page, limit: 2), big: WindowBuffers(size: 4 * page, limit: 6), rampCount: 2,
      ahead: 6 * page)
    let file = ReadAheadBlobFile(try LocalBlobFile(path: path), path: path, layout: layout) { index in
      windowsRead.withLock { $0.append(index) }
    }
    var byte = [UInt8](repeating: 0, count: 1)
    XCTAssertEqual(try byte.withUnsafeMutableBytes { try file.read(at: 0, into: $0) }, 1)
    file.waitForReadsAhead()
    file.waitForReadsAhead()
    // Window 0 is page 0; 1 is page 1; 2 is pages 2-5; 3 is pages 6-9: six pages after
    // window 0's end reach page 6.
    XCTAssertEqual(windowsRead.withLock { $0.sorted() }, [0, 1, 2, 3])
  }
}

/// A blob file whose length is near `Int.max` (a sparse file, on a file system that allows
/// one: tmpfs, XFS, btrfs) is read without an arithmetic overflow, which would stop the
/// process (a mount and all its open files with it).
final class HugeBlobFileLengthTests: XCTestCase {
  func testReadingAheadNearTheLargestLengthDoesNotOverflow() {
    let layout = WindowLayout.mount
    for length in [Int.max, Int.max - 1, Int.max - (2 << 20), Int.max - (4 << 20) + 1] {
      let index = layout.index(of: length - 100)
      XCTAssertEqual(layout.lastAhead(after: index, length: length), index, "the file ends in it")
      XCTAssertFalse(layout.holds(200, at: length - 100, in: index, length: length))
      XCTAssertTrue(layout.holds(100, at: length - 100, in: index, length: length))
    }
  }

  func testASparseFileOfNearlyEightExbibytesReadsAtItsEnd() throws {
    // tmpfs takes a length near Int.max where ext4 refuses it.
    let path = "/dev/shm/vault-huge-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let descriptor = open(path, O_CREAT | O_RDWR | O_EXCL, 0o600)
    guard descriptor >= 0 else { return XCTFail("cannot make \(path): errno \(errno)") }
    defer { unlink(path) }
    let length = Int.max - (2 << 20)
    let truncated = ftruncate(descriptor, off_t(length))
    close(descriptor)
    XCTAssertEqual(truncated, 0, "tmpfs takes a sparse file of \(length) bytes")
    let file = ReadAheadBlobFile(try LocalBlobFile(path: path), path: path)
    var bytes = [UInt8](repeating: 1, count: 100)
    XCTAssertEqual(try bytes.withUnsafeMutableBytes { try file.read(at: length - 100, into: $0) }, 100)
    XCTAssertEqual(bytes, [UInt8](repeating: 0, count: 100))
    let inPlace = try file.withBytesInPlace(at: length - 50, count: 50) { Array($0) }
    XCTAssertEqual(inPlace, [UInt8](repeating: 0, count: 50))
  }
}
