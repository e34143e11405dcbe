import Foundation
import XCTest

/// docs/man/vault.1 is made from the built binary's help by scripts/man-page (`make man`):
/// a help text changed without the page made again fails here.
final class ManPageTests: XCTestCase {
  func testManPageIsMadeFromTheCurrentHelp() throws {
    let script = Process()
    script.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    script.arguments = ["python3", projectPath + "/scripts/man-page", VaultRunner.binary]
    let output = Pipe()
    script.standardOutput = output
    try script.run()
    let made = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    script.waitUntilExit()
    XCTAssertEqual(script.terminationStatus, 0, "scripts/man-page failed")
    let committed = try String(contentsOfFile: projectPath + "/docs/man/vault.1", encoding: .utf8)
    let madeLines = made.split(separator: "\n", omittingEmptySubsequences: false)
    let committedLines = committed.split(separator: "\n", omittingEmptySubsequences: false)
    for (number, (new, old)) in zip(madeLines, committedLines).enumerated() where new != old {
      XCTFail(
        "docs/man/vault.1 is stale from its line \(number + 1) ('make man' makes it again):\ncommitted: \(old)\nmade:      \(new)"
      )
      return
    }
    XCTAssertEqual(
      madeLines.count, committedLines.count, "docs/man/vault.1 is stale ('make man' makes it again)")
  }
}
