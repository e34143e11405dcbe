import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// The MD5 a backup records of each file, against coreutils' md5sum, over files of seeded
/// random bytes and sizes around the read chunk (the seed is printed on failure;
/// `VAULT_TEST_SEED` replays it).
final class FileMD5Tests: XCTestCase {
  private let seed = ProcessInfo.processInfo.environment["VAULT_TEST_SEED"].flatMap(UInt64.init) ?? 35_035

  func testSizeAndMD5MatchMd5sumAndTheCopyIsExact() throws {
    try requireTool("/usr/bin/md5sum")
    let folder = try makeTemporaryFolder(self)
    var random = SeededGenerator(seed: seed)
    let chunk = FileMD5.chunkSize
    let sizes =
      [0, 1, 55, 64, chunk - 1, chunk, chunk + 1, 2 * chunk]
      + (0..<4).map { _ in
        Int.random(in: 0..<(3 * chunk), using: &random)
      }
    for (index, size) in sizes.enumerated() {
      let path = folder + "/file-\(index)"
      try writeBytes(randomBytes(size, &random), to: path)
      let expected = try md5sum(path)
      let read = try XCTUnwrap(FileMD5.of(path))
      XCTAssertEqual(read.size, Int64(size), "seed \(seed)")
      XCTAssertEqual(read.md5, expected, "size \(size), seed \(seed)")
      let copied = try XCTUnwrap(FileMD5.copy(path, to: path + ".copy"))
      XCTAssertEqual(copied.md5, expected, "size \(size), seed \(seed)")
      XCTAssertEqual(try fileBytes(path + ".copy"), try fileBytes(path), "size \(size), seed \(seed)")
    }
    XCTAssertNil(try FileMD5.of(folder + "/absent"))
  }

  /// `count` random bytes, made eight at a time.
  private func randomBytes(_ count: Int, _ random: inout SeededGenerator) -> [UInt8] {
    let words = (0..<(count + 7) / 8).map { _ in random.next() }
    return words.withUnsafeBytes { Array($0.prefix(count)) }
  }

  /// The hex MD5 md5sum prints for `path`.
  private func md5sum(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/md5sum")
    process.arguments = [path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(String(decoding: printed, as: UTF8.self).prefix(32))
  }
}
