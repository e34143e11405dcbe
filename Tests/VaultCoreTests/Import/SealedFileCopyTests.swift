import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// The memory a file being imported is read into holds its bytes, and no process given its
/// descriptor (a decoder helper) can change them afterwards.
final class SealedFileCopyTests: XCTestCase {
  func testItHoldsTheFileAndCannotBeWrittenResizedOrMappedWritable() throws {
    let folder = try makeTemporaryFolder(self)
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    for round in 0..<20 {
      let path = folder + "/photo-\(round).jpg"
      // Sizes around pages and sendfile's pieces as well as odd ones.
      let size = [1, 4095, 4096, 4097, 65537, 1 << 20].randomElement(using: &generator)! + round % 3
      let contents = (0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }
      try writeBytes(contents, to: path)
      // Both ways in: copied in the kernel, and read in through a mapping.
      let copy = try SealedFileCopy(reading: SourceFile(path: path), copyingInKernel: round % 2 == 0)
      let message = "seed \(seed), round \(round)"
      XCTAssertEqual(Array(copy.bytes), contents, message)
      var byte: UInt8 = 0
      XCTAssertEqual(pwrite(copy.descriptor, &byte, 1, 0), -1, message)
      XCTAssertEqual(errno, EPERM, message)
      XCTAssertEqual(ftruncate(copy.descriptor, 0), -1, message)
      XCTAssertEqual(errno, EPERM, message)
      XCTAssertEqual(ftruncate(copy.descriptor, off_t(size + 1)), -1, message)
      XCTAssertEqual(errno, EPERM, message)
      XCTAssertEqual(
        mmap(nil, size, PROT_READ | PROT_WRITE, MAP_SHARED, copy.descriptor, 0), MAP_FAILED, message)
      XCTAssertEqual(errno, EPERM, message)
      XCTAssertEqual(Array(copy.bytes), contents, message)
    }
  }

  /// Made with MFD_NOEXEC_SEAL where the kernel has it (6.3 on): a memfd is otherwise 0777,
  /// and nothing may ever run a photo's bytes (security review of issue 35).
  func testItIsNeverExecutableOnAKernelThatCanSayNo() throws {
    var name = utsname()
    uname(&name)
    let release = withUnsafeBytes(of: name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let version = release.split(separator: ".").prefix(2).compactMap { Int($0.prefix { $0.isNumber }) }
    try XCTSkipUnless(
      version.count == 2 && (version[0], version[1]) >= (6, 3), "Linux \(release) predates 6.3")
    let path = try makeTemporaryFolder(self) + "/photo.jpg"
    try writeBytes([UInt8](repeating: 7, count: 10_000), to: path)
    let copy = try SealedFileCopy(reading: SourceFile(path: path))
    var status = stat()
    XCTAssertEqual(fstat(copy.descriptor, &status), 0)
    XCTAssertEqual(status.st_mode & 0o111, 0, "mode \(String(status.st_mode & 0o777, radix: 8))")
    XCTAssertEqual(fchmod(copy.descriptor, 0o755), -1, "the exec seal keeps it so")
  }

  func testAFileShorterThanWhenItWasOpenedIsRefused() throws {
    let path = try makeTemporaryFolder(self) + "/photo.jpg"
    for copyingInKernel in [true, false] {
      try writeBytes([UInt8](repeating: 7, count: 10_000), to: path)
      let source = try SourceFile(path: path)
      XCTAssertEqual(truncate(path, 5_000), 0)
      XCTAssertThrowsError(try SealedFileCopy(reading: source, copyingInKernel: copyingInKernel)) { error in
        XCTAssertEqual(
          error as? VaultError, .io(path: path, reason: "file changed while it was being imported"))
      }
    }
  }
}
