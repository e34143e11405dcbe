import Foundation
import XCTest

/// Asserts that two `stty -a` reports in `folder` agree, naming the settings that differ
/// (the whole reports are long, and a failure's message is cut to its end).
func assertSameTerminalSettings(
  _ reportFile: String, as expectedFile: String, in folder: String,
  file: StaticString = #filePath, line: UInt = #line
) throws {
  let report = try String(contentsOfFile: folder + "/" + reportFile, encoding: .utf8)
  let expected = try String(contentsOfFile: folder + "/" + expectedFile, encoding: .utf8)
  guard report != expected else { return }
  let settings = { (text: String) in
    Set(
      text.split(whereSeparator: { $0 == "\n" || $0 == ";" }).map { $0.trimmingCharacters(in: .whitespaces) }
        .flatMap {
          $0.contains("=") || $0.hasPrefix("speed") || $0.hasPrefix("rows") || $0.hasPrefix("columns")
            ? [$0] : $0.split(separator: " ").map(String.init)
        })
  }
  let (got, wanted) = (settings(report), settings(expected))
  XCTFail(
    "\(reportFile) differs from \(expectedFile): only in \(reportFile): \(got.subtracting(wanted).sorted()); "
      + "only in \(expectedFile): \(wanted.subtracting(got).sorted())",
    file: file, line: line)
}
