import Foundation
import XCTest

extension VaultRunner {
  /// Runs vault through GNU time (scripts/deps.sh installs it): vault is its child, so
  /// %M is vault's own peak resident memory, in KiB.
  func runMeasured(_ arguments: [String]) throws -> (run: VaultRun, peakBytes: Int) {
    let peakPath = workingDirectory + "/.peak-\(UUID().uuidString)"
    let run = try run(arguments, through: ["/usr/bin/time", "-f", "%M", "-o", peakPath])
    let last = try String(contentsOfFile: peakPath, encoding: .utf8).split(separator: "\n").last
    let kib = try XCTUnwrap(last.flatMap { Int($0) }, "time wrote no peak")
    return (run, kib << 10)
  }
}
