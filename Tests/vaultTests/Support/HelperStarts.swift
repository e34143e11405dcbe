import Foundation
import XCTest

extension VaultRunner {
  /// The decoder helper this runner's vault starts: the one beside it.
  var helper: String { (executable as NSString).deletingLastPathComponent + "/vault-decoder" }

  /// This runner on a copy of vault and its helper of its own, in `folder`/bin: the tests run
  /// in two lanes, and another test's decoder opening the shared helper's file would count
  /// as a start of this one's (`helperStarts`).
  func withOwnBinaries(in folder: String) throws -> VaultRunner {
    let built = (VaultRunner.binary as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
    for name in ["vault", "vault-decoder"] {
      try FileManager.default.copyItem(atPath: built + "/" + name, toPath: folder + "/bin/" + name)
    }
    var runner = self
    runner.executable = folder + "/bin/vault"
    return runner
  }

  /// How many times `body` started this runner's decoder helper: each start opens its
  /// executable (execve), which inotify reports before vault can have ended.
  func helperStarts(during body: () throws -> Void) throws -> Int {
    let events = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    XCTAssertGreaterThanOrEqual(events, 0)
    defer { close(events) }
    XCTAssertGreaterThanOrEqual(inotify_add_watch(events, helper, UInt32(IN_OPEN)), 0, helper)
    try body()
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
}
