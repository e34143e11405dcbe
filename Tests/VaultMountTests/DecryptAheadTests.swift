import Foundation
import Synchronization
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultMount

/// The mount's blocks decrypted ahead of reads, without /dev/fuse: open files of a real
/// space's original read through a `DecryptAhead` with few slots, from several threads.
final class DecryptAheadTests: XCTestCase {
  var space: Space!
  var record: PhotoRecord!
  /// The original: Fixtures/photo.jpg and random bytes after it (decoders stop at its end
  /// marker), about 7 blocks.
  var original: [UInt8] = []
  let pool = ReaderPool(limit: 4)
  let ahead = DecryptAhead(slots: 6)

  override func setUpWithError() throws {
    let folder = try makeTemporaryFolder(self)
    var random = SeededGenerator(seed: 5)
    original =
      try fileBytes(fixturesPath + "/photo.jpg")
      + (0..<1_800_000).map { _ in UInt8.random(in: 0...255, using: &random) }
    try writeBytes(original, to: folder + "/long.jpg")
    let vault = try Vault.create(at: folder + "/vault", kdf: KDFParameters(preset: .interactive))
    let password = try Password(utf8: Array("first".utf8))
    try vault.createSpace(password: password)
    space = try vault.unlock(password: password, access: .write)
    try PhotoImporter().importFiles([folder + "/long.jpg"], into: space) { _, _ in }
    record = try XCTUnwrap(space.makeBrowser().photo(at: 0)?.record)
  }

  /// An open file of the original, as the mount opens one.
  func openFile() -> OpenOriginal {
    let (space, record) = (space!, record!)
    let opener = space.originalOpener
    return OpenOriginal(
      file: MountTree.File(record: record, inode: 2, links: 1), pool: pool, ahead: ahead
    ) {
      try opener.ranges(of: record, in: opener.blob(of: record))
    }
  }

  static func read(_ file: OpenOriginal, _ offset: Int, _ count: Int) throws -> [UInt8] {
    try file.read(at: Int64(offset), count: count) { Array($0) }
  }

  /// A walk through the file as a reader makes it: from the start block by block (as the
  /// kernel reads a file read whole) or from a random place, by reads of random lengths.
  static func randomReads(_ count: Int, in original: [UInt8], using random: inout SeededGenerator) -> [(
    offset: Int, count: Int
  )] {
    let block = DecryptAhead.blockSize
    var reads: [(Int, Int)] = []
    var offset = Bool.random(using: &random) ? 0 : Int.random(in: 0..<original.count + 10, using: &random)
    for _ in 0..<count {
      let length = Bool.random(using: &random) ? block : Int.random(in: 0...2 * block, using: &random)
      reads.append((offset, length))
      offset =
        Int.random(in: 0..<4, using: &random) == 0
        ? Int.random(in: 0..<original.count, using: &random) : offset + length
    }
    return reads
  }

  static func expected(_ offset: Int, _ count: Int, in original: [UInt8]) -> [UInt8] {
    offset >= original.count ? [] : Array(original[offset..<min(original.count, offset + count)])
  }

  func testRandomReadsFromSeveralThreadsGetTheOriginal() throws {
    let seed = UInt64.random(in: 0...UInt64.max)
    let failures = Mutex<[String]>([])
    let (ahead, original) = (ahead, original)
    do {
      let files = (0..<3).map { _ in openFile() }
      DispatchQueue.concurrentPerform(iterations: 6) { thread in
        var random = SeededGenerator(seed: seed &+ UInt64(thread))
        for (offset, count) in Self.randomReads(60, in: original, using: &random) {
          do {
            let bytes = try Self.read(files[thread % 3], offset, count)
            if bytes != Self.expected(offset, count, in: original) {
              failures.withLock { $0.append("thread \(thread): \(offset)+\(count) differs") }
            }
          } catch {
            failures.withLock { $0.append("thread \(thread): \(offset)+\(count): \(error)") }
          }
          if !ahead.freeSlotsAreDistinct { failures.withLock { $0.append("a slot released twice") } }
        }
      }
    }
    XCTAssertEqual(failures.withLock { $0 }, [], "seed \(seed)")
    ahead.queue.sync {}
    XCTAssertEqual(ahead.blocksHeld, 0, "closed files' blocks are wiped and freed (seed \(seed))")
  }

  /// An open file whose first block was read: the blocks after it are decrypted ahead, as
  /// many as a file may hold.
  func openFileReadFromItsStart(file: StaticString = #filePath, line: UInt = #line) throws -> OpenOriginal {
    let opened = openFile()
    let block = DecryptAhead.blockSize
    XCTAssertTrue(
      try Self.read(opened, 0, block) == Self.expected(0, block, in: original), file: file, line: line)
    ahead.queue.sync {}
    XCTAssertEqual(ahead.blocksHeld, DecryptAhead.blocksAhead, file: file, line: line)
    return opened
  }

  func testTheBlocksAfterAReadAreDecryptedAheadAndReadFromThere() throws {
    let file = try openFileReadFromItsStart()
    let block = DecryptAhead.blockSize
    for index in 1..<original.count / block + 1 {
      XCTAssertTrue(
        try Self.read(file, index * block + 7, block)
          == Self.expected(index * block + 7, block, in: original),
        "block \(index)")
      ahead.queue.sync {}
    }
  }

  /// A seek forward drops the blocks decrypted ahead of the old place: a file holds
  /// `blocksAhead` at most, or a video player seeking through one would hold every slot.
  func testASeekForwardLetsGoOfTheBlocksAheadOfTheOldPlace() throws {
    let file = try openFileReadFromItsStart()
    let block = DecryptAhead.blockSize
    XCTAssertTrue(try Self.read(file, 5 * block, 100) == Self.expected(5 * block, 100, in: original))
    ahead.queue.sync {}
    XCTAssertLessThanOrEqual(ahead.blocksHeld, DecryptAhead.blocksAhead)
    XCTAssertTrue(ahead.freeSlotsAreDistinct)
  }

  /// Chunk 6 (plaintext 384 KiB to 448 KiB, in block 1: decrypted ahead after a read of
  /// block 0) damaged: a read over it fails, whether its block was decrypted ahead or not,
  /// and never hands out any of its bytes.
  func testADamagedChunkGivesAnErrorNeverItsBytes() throws {
    let path = space.photoPath(record.id)
    var blob = try fileBytes(path)
    blob[SeekableBlobFormat.headerLength + 6 * SeekableBlobFormat.sealedChunkSize + 99] ^= 0x20
    try writeBytes(blob, to: path)
    let seed = UInt64.random(in: 0...UInt64.max)
    var random = SeededGenerator(seed: seed)
    let chunk = SeekableBlobFormat.chunkSize
    var file: OpenOriginal? = openFile()
    for (offset, count) in Self.randomReads(200, in: original, using: &random) {
      let overDamage =
        offset < 7 * chunk && offset + count > 6 * chunk && offset < original.count && count > 0
      if Bool.random(using: &random) { ahead.queue.sync {} }
      do {
        let bytes = try Self.read(file!, offset, count)
        XCTAssertFalse(overDamage, "\(offset)+\(count) read over the damaged chunk (seed \(seed))")
        XCTAssertTrue(
          bytes == Self.expected(offset, count, in: original), "\(offset)+\(count) (seed \(seed))")
      } catch {
        XCTAssertTrue(overDamage, "\(offset)+\(count): \(error) (seed \(seed))")
        guard case .damagedBlob(_, let reason) = error as? VaultError else { return XCTFail("\(error)") }
        XCTAssertEqual(reason, "chunk 6 does not authenticate (changed, truncated or swapped)")
      }
    }
    file = nil
    ahead.queue.sync {}
    XCTAssertEqual(ahead.blocksHeld, 0, "seed \(seed)")
  }
}
