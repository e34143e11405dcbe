import Foundation
import XCTest

/// `add` flushes each blob on the thread that commits it, not on the thread that made it;
/// wherever the flush happens, a blob gets its final name only once its bytes are on disk.
final class ImportDurabilityTests: XCTestCase {
  func testEveryBlobIsFlushedBeforeItGetsItsName() throws {
    let strace = "/usr/bin/strace"
    try requireTool(strace)
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder)
    let names = ["photo.jpg", "gray.png", "orientation-6.jpg", "progressive.jpg", "interlaced.png"]
    let trace = folder + "/trace"
    let run = try vault.run(
      ["add"] + names.map { fixturesPath + "/" + $0 },
      through: [strace, "-f", "-y", "-e", "trace=fsync,rename", "-o", trace])
    XCTAssertEqual(run.status, 0, run.stderr)
    let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
    // strace names a descriptor by its real path; vault names files through `folder`.
    let realFolder = (try? FileManager.default.destinationOfSymbolicLink(atPath: folder)) ?? folder
    var named = 0
    for (position, call) in calls.enumerated() {
      // rename("…/.tmp-…", "…/Photo/<id>") must come after fsync(N<…/.tmp-…>).
      guard call.contains("rename("), call.contains("/Photo/") || call.contains("/Thumb/"),
        let from = call.split(separator: "\"").dropFirst().first
      else { continue }
      named += 1
      let descriptor = "<" + from.replacingOccurrences(of: folder, with: realFolder) + ">"
      XCTAssertTrue(
        calls[..<position].contains { $0.contains("fsync(") && $0.contains(descriptor) },
        "\(from) named before it was flushed: \(calls)")
    }
    XCTAssertEqual(named, names.count * 2, "\(calls)")
  }
}
