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
    // A copy of vault and its helper of this test's own: the tests run in two lanes, and
    // another test's decoder opening the shared helper's file counted here as a start.
    let built = (VaultRunner.binary as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
    for name in ["vault", "vault-decoder"] {
      try FileManager.default.copyItem(atPath: built + "/" + name, toPath: folder + "/bin/" + name)
    }
    vault.executable = folder + "/bin/vault"
  }

  /// How many times `arguments` started the decoder helper: each start opens its
  /// executable (execve), which inotify reports before vault can have ended.
  private func helperStarts(by arguments: [String]) throws -> Int {
    let helper = (vault.executable as NSString).deletingLastPathComponent + "/vault-decoder"
    let events = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    XCTAssertGreaterThanOrEqual(events, 0)
    defer { close(events) }
    XCTAssertGreaterThanOrEqual(inotify_add_watch(events, helper, UInt32(IN_OPEN)), 0, helper)
    let shown = try vault.run(arguments)
    XCTAssertEqual(shown.status, 0, shown.stderr)
    XCTAssertTrue(shown.stdout.contains("photo.jpg"), shown.stdout)
    var starts = 0
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(events, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      // Events on one watched file carry no name: each is the fixed header alone.
      starts += count / MemoryLayout<inotify_event>.size
    }
    return starts
  }

  func testShowStartsADecoderOnlyToDrawPictures() throws {
    XCTAssertEqual(try helperStarts(by: ["show", "1"]), 0, "labels only, to a file")
    XCTAssertEqual(try helperStarts(by: ["show", "1", "--mode", "text"]), 0)
    XCTAssertEqual(try helperStarts(by: ["show", "1", "--mode", "symbols"]), 1, "a picture drawn")
  }
}
