import Foundation
import XCTest

/// docs/DEVELOPING.md quotes scripts/deps.sh's two package lists whole, with their comments:
/// the script is the one source, and a package added there and not in the quote (or the
/// other way round) fails here.
final class PackageListQuoteTests: XCTestCase {
  func testDevelopingQuotesTheScriptsPackageListsWhole() throws {
    let script = try lines(of: "scripts/deps.sh")
    let page = try lines(of: "docs/DEVELOPING.md")
    let listed = try packageLists(in: script)
    let quoted = try shellBlock(after: "## Packages", in: page)
    for (index, (line, quote)) in zip(listed, quoted).enumerated() where line != quote {
      XCTFail(
        "docs/DEVELOPING.md's quote differs from scripts/deps.sh at its line \(index + 1):\nquoted: \(quote)\nscript: \(line)"
      )
      return
    }
    XCTAssertEqual(
      quoted.count, listed.count,
      "docs/DEVELOPING.md quotes \(quoted.count) lines of scripts/deps.sh's \(listed.count)")
  }

  private func lines(of path: String) throws -> [String] {
    let text = try String(contentsOfFile: projectPath + "/" + path, encoding: .utf8)
    return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// BUILD_PACKAGES with the comment above it, through the TEST_PACKAGES line.
  private func packageLists(in script: [String]) throws -> ArraySlice<String> {
    let build = try XCTUnwrap(script.firstIndex { $0.hasPrefix("BUILD_PACKAGES=(") }, "no BUILD_PACKAGES")
    let test = try XCTUnwrap(script.firstIndex { $0.hasPrefix("TEST_PACKAGES=(") }, "no TEST_PACKAGES")
    var start = build
    while start > 0 && script[start - 1].hasPrefix("#") { start -= 1 }
    return script[start...test]
  }

  /// The lines inside the first ```sh block after `heading`.
  private func shellBlock(after heading: String, in page: [String]) throws -> ArraySlice<String> {
    let section = try XCTUnwrap(page.firstIndex(of: heading), "no '\(heading)' heading")
    let open = try XCTUnwrap(page[section...].firstIndex(of: "```sh"), "no ```sh block after '\(heading)'")
    let close = try XCTUnwrap(page[(open + 1)...].firstIndex(of: "```"), "the ```sh block does not end")
    return page[(open + 1)..<close]
  }
}
