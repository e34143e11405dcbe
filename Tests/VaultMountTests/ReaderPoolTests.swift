import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultMount

/// The mount's readers of open files, without /dev/fuse: readers of a real space's
/// original, at most `limit` of them, the one idle longest closed for a new one.
final class ReaderPoolTests: XCTestCase {
  var space: Space!
  var record: PhotoRecord!
  /// How many readers the tests' `open` made.
  var opened = 0

  override func setUpWithError() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try Vault.create(at: folder + "/vault", kdf: KDFParameters(preset: .interactive))
    let password = try Password(utf8: Array("first".utf8))
    try vault.createSpace(password: password)
    space = try vault.unlock(password: password, access: .write)
    try PhotoImporter().importFiles([fixturesPath + "/photo.jpg"], into: space) { _, _ in }
    record = try XCTUnwrap(space.makeBrowser().photo(at: 0)?.record)
  }

  func open() throws -> OriginalRangeReader {
    opened += 1
    return try space.originalRanges(of: record)
  }

  /// Stands for an open file of the mount.
  final class OpenFile {}
  /// Kept for the whole test: a freed one's identifier could be the next one's.
  let openFiles = (0..<4).map { _ in OpenFile() }

  func testAFilesIdleReaderIsTakenAgain() throws {
    let pool = ReaderPool(limit: 2)
    let file = ObjectIdentifier(openFiles[0])
    let reader = try pool.take(for: file, open: open)
    pool.giveBack(reader, of: file)
    XCTAssertTrue(try pool.take(for: file, open: open) === reader)
    XCTAssertEqual(opened, 1)
    XCTAssertEqual(pool.readers, 1)
  }

  func testAtTheLimitTheReaderIdleLongestIsClosed() throws {
    let pool = ReaderPool(limit: 2)
    let files = openFiles.prefix(3).map(ObjectIdentifier.init)
    let first = try pool.take(for: files[0], open: open)
    let second = try pool.take(for: files[1], open: open)
    pool.giveBack(first, of: files[0])
    pool.giveBack(second, of: files[1])
    pool.giveBack(try pool.take(for: files[2], open: open), of: files[2])
    XCTAssertEqual(pool.readers, 2, "never more than the limit")
    let again = try pool.take(for: files[1], open: open)
    XCTAssertTrue(again === second, "the newer idle one is kept")
    pool.giveBack(again, of: files[1])
    XCTAssertFalse(try pool.take(for: files[0], open: open) === first, "the one idle longest was closed")
    XCTAssertEqual(opened, 4)
    XCTAssertEqual(pool.readers, 2)
  }

  func testAFailedOpenGivesItsPlaceBack() throws {
    let pool = ReaderPool(limit: 1)
    let file = ObjectIdentifier(openFiles[0])
    XCTAssertThrowsError(try pool.take(for: file) { throw VaultError.invalidArgument("cannot open") })
    XCTAssertEqual(pool.readers, 0)
    XCTAssertNoThrow(try pool.take(for: file, open: open))
    XCTAssertEqual(pool.readers, 1)
  }

  func testClosingAFileClosesItsIdleReaders() throws {
    let pool = ReaderPool(limit: 3)
    let (kept, closed) = (ObjectIdentifier(openFiles[0]), ObjectIdentifier(openFiles[1]))
    pool.giveBack(try pool.take(for: kept, open: open), of: kept)
    pool.giveBack(try pool.take(for: closed, open: open), of: closed)
    pool.close(closed)
    XCTAssertEqual(pool.readers, 1)
    XCTAssertEqual(opened, 2)
    _ = try pool.take(for: kept, open: open)
    XCTAssertEqual(opened, 2, "the other file's reader is still there")
  }

  /// With every reader busy, a read waits for one to be given back, and then reads with a
  /// reader of its own: the pool never holds more than its limit.
  func testAReadWaitsWhileEveryReaderIsBusy() throws {
    let pool = ReaderPool(limit: 1)
    let (busy, waiting) = (ObjectIdentifier(openFiles[0]), ObjectIdentifier(openFiles[1]))
    let reader = try pool.take(for: busy, open: open)
    // Opened here and handed over to the waiting thread, which alone uses it then, for the
    // pool's `open`: a reader made there would need the space, which stays on this thread.
    nonisolated(unsafe) let spare = try space.originalRanges(of: record)
    let taken = WaitableMutex<ObjectIdentifier?>(nil)
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      let other = try? pool.take(for: waiting) { spare }
      taken.withLock { $0 = other.map(ObjectIdentifier.init) }
      done.signal()
    }
    XCTAssertNil(taken.withLock { $0 }, "took a reader while the only one was busy")
    pool.giveBack(reader, of: busy)
    done.wait()
    let other = taken.withLock { $0 }
    XCTAssertNotNil(other)
    XCTAssertNotEqual(other, ObjectIdentifier(reader))
    XCTAssertEqual(pool.readers, 1)
  }
}
