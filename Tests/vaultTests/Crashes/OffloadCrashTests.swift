import Foundation
import XCTest

/// Kills `vault offload` and `vault keep` with SIGKILL at seeded moments, over rclone's
/// local backend, and checks after every kill that every photo is still listed and exports
/// bit for bit (from the disk or from the remote), and that the same command run again
/// completes, after which verify finds nothing wrong. Prints how many runs were killed
/// midway. `VAULT_TEST_SEED` (or `VAULT_TORTURE_SEED`) sets the seed, `VAULT_TORTURE_KILLS`
/// the number of kills (default 15).
final class OffloadCrashTests: XCTestCase {
  let names = ["photo.jpg", "rgba.png", "gray.png", "palette.png", "interlaced.png"]
  let environment = ["RCLONE_CONFIG": "/nonexistent"]

  func testAKillAtAnyMomentLosesNothingAndTheNextRunCompletes() throws {
    try requireRclone()
    let settings = ProcessInfo.processInfo.environment
    let kills = settings["VAULT_TORTURE_KILLS"].flatMap(Int.init).map { max(4, $0 / 3) } ?? 15
    let seed =
      (settings["VAULT_TEST_SEED"] ?? settings["VAULT_TORTURE_SEED"]).flatMap(UInt64.init) ?? 20_261_129
    print("OffloadCrashTests seed: \(seed) (VAULT_TEST_SEED=\(seed) replays it)")
    var random = SeededGenerator(seed: seed)
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["add"] + names.map { fixturesPath + "/" + $0 }).status, 0)
    let remote = folder + "/remote"
    // How long a whole run takes here: kills fall anywhere within it.
    var microseconds = 0
    for command in [["offload", "--all", "--to", remote], ["keep", "--all"]] {
      let run = try vault.run(command, environment: environment)
      XCTAssertEqual(run.status, 0, run.stderr)
      microseconds = max(microseconds, run.microseconds)
    }
    var killedMidway = 0
    var counts: [String: Int] = ["offload": 0, "keep": 0]
    for kill in 0..<kills {
      let offloading = random.next() % 2 == 0
      let photos = (1...names.count).filter { _ in random.next() % 3 != 0 }.map(String.init)
      let command =
        offloading
        ? ["offload"] + (photos.isEmpty ? ["--all"] : photos) + ["--to", remote] : ["keep", "--all"]
      counts[command[0]]! += 1
      let delay = Int(random.next() % UInt64(microseconds + 1))
      let killed = try vault.run(command, environment: environment, killAfter: delay)
      if killed.status == SIGKILL { killedMidway += 1 }
      let context = "kill \(kill) (seed \(seed)): \(command.joined(separator: " ")) after \(delay) µs"
      try assertEveryPhotoReads(vault, in: folder, out: "out-\(kill)", context)
      let again = try vault.run(command, environment: environment)
      XCTAssertEqual(again.status, 0, "\(context): the next run: \(again.stderr)")
      let verify = try vault.run(["verify", "--quick"], environment: environment)
      XCTAssertEqual(verify.status, 0, "\(context): \(verify.stdout) \(verify.stderr)")
    }
    print(
      "OffloadCrashTests: \(kills) runs (\(counts["offload"]!) offload, \(counts["keep"]!) keep), "
        + "\(killedMidway) killed midway, every photo listed and read after each")
  }

  /// Every photo is listed, and exports bit for bit.
  private func assertEveryPhotoReads(_ vault: VaultRunner, in folder: String, out: String, _ context: String)
    throws
  {
    let listed = try vault.run(["list", "--json"], environment: environment)
    XCTAssertEqual(
      try VaultRunner.jsonObjects(listed.stdout).count, names.count, "\(context): \(listed.stderr)")
    let exported = try vault.run(["export", "--all", "--to", out], environment: environment)
    XCTAssertEqual(exported.status, 0, "\(context): \(exported.stderr)")
    for name in names {
      XCTAssertEqual(
        try? fileBytes(folder + "/" + out + "/" + name), try fileBytes(fixturesPath + "/" + name),
        "\(context): \(name)")
    }
  }
}
