import Foundation
import XCTest

/// `vault add` decodes nothing while the password's key is derived: the derivation holds
/// 64 MiB or more, and a decoder helper started beside it (its ~170 libraries, ~20 MB
/// mapped) and its first file put the import's peak over 100 MB (docs/PERFORMANCE.md). So
/// a wrong password starts no helper at all.
final class AddKeyDerivationTests: XCTestCase {
  func testAWrongPasswordStartsNoDecoderHelper() throws {
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder).withOwnBinaries(in: folder)
    let photos = ["photo.jpg", "gray.jpg", "orientation-1.jpg", "gray.png"].map { fixturesPath + "/" + $0 }
    let refusedStarts = try vault.helperStarts {
      let refused = try vault.run(["add"] + photos, password: "wrong")
      XCTAssertEqual(refused.status, 3, refused.stderr)
      XCTAssertEqual(refused.stderr, "error: no space opens with this password\n")
    }
    XCTAssertEqual(refusedStarts, 0, "a helper started while the key was derived")
    let addedStarts = try vault.helperStarts {
      let added = try vault.run(["add"] + photos)
      XCTAssertEqual(added.status, 0, added.stderr)
    }
    XCTAssertGreaterThan(addedStarts, 0, "the watch sees the helper start once the key is there")
  }
}
