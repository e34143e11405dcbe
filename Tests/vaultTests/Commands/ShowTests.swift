import Foundation
import XCTest

/// `vault show` starts a decoder helper only when it draws pictures: printing labels (its
/// output piped, NO_COLOR, TERM=dumb, --mode text) decodes nothing.
final class ShowTests: XCTestCase {
  var vault: VaultRunner!

  override func setUpWithError() throws {
    let folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/photo.jpg"]).status, 0)
    vault = try vault.withOwnBinaries(in: folder)
  }

  /// How many times `arguments` started the decoder helper.
  private func helperStarts(by arguments: [String]) throws -> Int {
    try vault.helperStarts {
      let shown = try vault.run(arguments)
      XCTAssertEqual(shown.status, 0, shown.stderr)
      XCTAssertTrue(shown.stdout.contains("photo.jpg"), shown.stdout)
    }
  }

  func testShowStartsADecoderOnlyToDrawPictures() throws {
    XCTAssertEqual(try helperStarts(by: ["show", "1"]), 0, "labels only, to a file")
    XCTAssertEqual(try helperStarts(by: ["show", "1", "--mode", "text"]), 0)
    XCTAssertEqual(try helperStarts(by: ["show", "1", "--mode", "symbols"]), 1, "a picture drawn")
  }
}
