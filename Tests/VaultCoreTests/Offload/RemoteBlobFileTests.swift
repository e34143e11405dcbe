import Foundation
import Synchronization
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Reads "remote" copies from a local folder, recording every read, as rclone's cat would
/// serve them.
final class FolderRangeReader: RemoteRangeReader {
  let remote: String
  let reads = Mutex<[(offset: Int, count: Int)]>([])

  init(folder: String) { remote = folder }

  func read(_ path: String, offset: Int, count: Int) throws -> [UInt8] {
    reads.withLock { $0.append((offset, count)) }
    let bytes = try fileBytes(remote + "/" + path)
    guard offset < bytes.count else { return [] }
    return Array(bytes[offset..<min(bytes.count, offset + count)])
  }
}

/// An offloaded original read through `RemoteBlobFile`: bit for bit, by range, with remote
/// reads that are block-aligned and bounded, a cache that stays within its limit, threads
/// that share it, and a copy cut short named as damage.
final class RemoteBlobFileTests: XCTestCase {
  var folder = ""
  var space: Space!
  var file: [UInt8] = []
  var record: PhotoRecord!
  var reader: FolderRangeReader!
  var blobLength = 0

  /// Imports Fixtures/photo.jpg followed by 9 MiB of random bytes, and puts its blob in a
  /// "remote" folder.
  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    var random = SeededGenerator(seed: 34)
    file =
      try fileBytes(fixturesPath + "/photo.jpg")
      + (0..<(9 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
    try writeBytes(file, to: folder + "/clip.jpg")
    let vault = try makeVault(in: folder + "/vault")
    try vault.createSpace(password: password("remote"))
    space = try vault.unlock(password: password("remote"), access: .write)
    try PhotoImporter().importFiles([folder + "/clip.jpg"], into: space) { _, _ in }
    record = try XCTUnwrap(space.entries.first?.record)
    let blob = try fileBytes(space.photoPath(record.id))
    blobLength = blob.count
    try FileManager.default.createDirectory(atPath: folder + "/remote", withIntermediateDirectories: true)
    try writeBytes(blob, to: folder + "/remote/blob")
    reader = FolderRangeReader(folder: folder + "/remote")
  }

  func remoteOriginal(cache: RemoteBlockCache, length: Int? = nil) throws -> OriginalBlobReader {
    let source = RemoteBlobFile(path: "blob", length: length ?? blobLength, reader: reader, cache: cache)
    return try OriginalBlobReader(blob: source, id: record.id, master: space.master, what: "photo 'clip.jpg'")
  }

  func read(_ original: OriginalBlobReader, _ offset: Int, _ count: Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    let read = try bytes.withUnsafeMutableBytes { try original.read(at: Int64(offset), into: $0) }
    return Array(bytes[0..<read])
  }

  func testTheOriginalComesBackBitForBitInBoundedBlockAlignedReads() throws {
    let cache = RemoteBlockCache(limit: 64 << 20)
    var whole: [UInt8] = []
    try remoteOriginal(cache: cache).readContent { whole.append(contentsOf: $0) }
    XCTAssertEqual(whole, file)
    let reads = reader.reads.withLock { $0 }
    for read in reads {
      XCTAssertEqual(read.offset % RemoteBlockCache.blockSize, 0, "\(read)")
      XCTAssertLessThanOrEqual(read.count, RemoteBlobFile.readAheadBlocks * RemoteBlockCache.blockSize)
    }
    // Every byte fetched once: the blob is 10 MiB, read ahead 4 MiB at a time, and its last
    // block first, for the record at its end.
    XCTAssertEqual(reads.map(\.count).reduce(0, +), blobLength, "\(reads)")
    XCTAssertEqual(reads.count, 1 + (blobLength + (4 << 20) - 1) / (4 << 20), "\(reads)")
  }

  /// Random ranges, each checked against the file; a seek far from what was read fetches
  /// at most the read-ahead. Seeded: the seed is printed.
  func testRangesReadAndASeekFetchesABoundedAmount() throws {
    for seed in UInt64(0)..<8 {
      var random = SeededGenerator(seed: seed)
      let cache = RemoteBlockCache(limit: Int.random(in: 1...8, using: &random) << 20)
      let original = try remoteOriginal(cache: cache)
      let readAhead = RemoteBlobFile(path: "blob", length: blobLength, reader: reader, cache: cache).readAhead
      for _ in 0..<20 {
        let before = reader.reads.withLock { $0.count }
        let offset = Int.random(in: 0..<file.count, using: &random)
        let count = Int.random(in: 0...300_000, using: &random)
        XCTAssertEqual(
          try read(original, offset, count), Array(file[offset..<min(file.count, offset + count)]),
          "seed \(seed): \(offset)+\(count)")
        let fetched = reader.reads.withLock { $0[before...].map(\.count).reduce(0, +) }
        // A range spans two blocks at most, each fetched with its read-ahead, and one that
        // reaches the end reads the last block for the record there.
        XCTAssertLessThanOrEqual(fetched, 3 * readAhead * RemoteBlockCache.blockSize, "seed \(seed)")
        XCTAssertLessThanOrEqual(cache.heldBytes, cache.limit, "seed \(seed)")
      }
    }
  }

  func testThreadsShareTheCacheAndEachReadsRight() throws {
    let cache = RemoteBlockCache(limit: 3 << 20)
    let failures = Mutex<[String]>([])
    let (file, reader, length, id, master) = (file, reader!, blobLength, record.id, space.master)
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      var random = SeededGenerator(seed: UInt64(thread))
      do {
        let source = RemoteBlobFile(path: "blob", length: length, reader: reader, cache: cache)
        let original = try OriginalBlobReader(blob: source, id: id, master: master, what: "clip")
        for _ in 0..<25 {
          let offset = Int.random(in: 0..<file.count, using: &random)
          var bytes = [UInt8](repeating: 0, count: 100_000)
          let count = try bytes.withUnsafeMutableBytes { try original.read(at: Int64(offset), into: $0) }
          if bytes[0..<count] != file[offset..<min(file.count, offset + 100_000)] {
            failures.withLock { $0.append("thread \(thread) at \(offset)") }
          }
        }
      } catch {
        failures.withLock { $0.append("thread \(thread): \(error)") }
      }
    }
    XCTAssertEqual(failures.withLock { $0 }, [])
    XCTAssertLessThanOrEqual(cache.heldBytes, cache.limit)
  }

  func testACopyCutShortIsDamageNamingTheRemote() throws {
    let blob = try fileBytes(folder + "/remote/blob")
    try writeBytes(Array(blob.dropLast(70_000)), to: folder + "/remote/blob")
    XCTAssertThrowsError(try remoteOriginal(cache: RemoteBlockCache(limit: 8 << 20))) { error in
      XCTAssertEqual(
        "\(error)",
        "photo 'clip.jpg' is damaged: its copy on '\(folder)/remote' ends at byte \(blob.count - 70_000), "
          + "its stub says \(blob.count)")
    }
    // A stub that says less than the blob: its last chunk does not authenticate as the end.
    try writeBytes(blob, to: folder + "/remote/blob")
    XCTAssertThrowsError(
      try remoteOriginal(cache: RemoteBlockCache(limit: 8 << 20), length: blob.count - 65552))
  }
}
