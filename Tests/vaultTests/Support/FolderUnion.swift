import Foundation
import XCTest

/// Copies `source` into `target` without overwriting (`cp -a -n`): the union of two
/// folders, as a sync engine that never removes a file leaves them. `target` is made if
/// missing.
func copyUnion(from source: String, to target: String, file: StaticString = #filePath, line: UInt = #line)
  throws
{
  if !FileManager.default.fileExists(atPath: target) {
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
  }
  let copy = Process()
  copy.executableURL = URL(fileURLWithPath: "/bin/cp")
  copy.arguments = ["-a", "-n", source + "/.", target]
  try copy.run()
  copy.waitUntilExit()
  XCTAssertEqual(copy.terminationStatus, 0, "cp -a -n \(source) \(target)", file: file, line: line)
}
