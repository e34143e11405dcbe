import XCTest

@testable import VaultCore

final class KeyWrapTests: XCTestCase {
  func testWrapRoundTrip() {
    let master = MasterKey.generate()
    let wrapping = SecureBytes.random(count: 32)
    let file = KeyWrap.wrap(master, with: wrapping)
    XCTAssertEqual(file.count, KeyWrap.fileLength)
    XCTAssertTrue(KeyWrap.unwrap(file, with: wrapping)?.key.isEqual(to: master.key) ?? false)
  }

  func testWrongKeyFlippedBytesAndTruncationAreRefused() {
    let master = MasterKey.generate()
    let wrapping = SecureBytes.random(count: 32)
    let file = KeyWrap.wrap(master, with: wrapping)
    XCTAssertNil(KeyWrap.unwrap(file, with: SecureBytes.random(count: 32)))
    for position in 0..<file.count {
      var damaged = file
      damaged[position] ^= 0x01
      XCTAssertNil(KeyWrap.unwrap(damaged, with: wrapping), "flip at \(position)")
    }
    for length in 0..<file.count {
      XCTAssertNil(KeyWrap.unwrap(Array(file[0..<length]), with: wrapping), "cut at \(length)")
    }
    XCTAssertNil(KeyWrap.unwrap(file + [0], with: wrapping))
  }

  func testPasswordKeysGiveDistinctTagsAndWrappingKeys() {
    let one = PasswordKeys(passwordKey: SecureBytes.random(count: 32))
    let two = PasswordKeys(passwordKey: SecureBytes.random(count: 32))
    XCTAssertEqual(one.spaceTag.count, 32)
    XCTAssertNotEqual(one.spaceTag, two.spaceTag)
    XCTAssertFalse(one.wrappingKey.isEqual(to: two.wrappingKey))
  }
}
