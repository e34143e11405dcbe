import Foundation
import XCTest

/// Kills `vault add --move` with SIGKILL at seeded moments and seeded durable steps, and
/// checks after every kill that each source photo is still at its path, whole, or in the
/// space bit for bit (exported and compared): never in neither place. `VAULT_TORTURE_KILLS`
/// sets the number of kills (default 16) and `VAULT_TORTURE_SEED` the seed.
final class MoveCrashTests: XCTestCase {
  func testNoPhotoIsEverInNeitherPlace() throws {
    let environment = ProcessInfo.processInfo.environment
    let kills = environment["VAULT_TORTURE_KILLS"].flatMap(Int.init).map { max(4, $0 / 3) } ?? 16
    let seed = environment["VAULT_TORTURE_SEED"].flatMap(UInt64.init) ?? 20_261_122
    var random = SeededGenerator(seed: seed ^ 0x30FE)
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder)
    let fixtures = ["photo.jpg", "gray.png", "rgba.png", "quad-420.jpg", "palette.png", "interlaced.png"]
    var microseconds: Int?
    var killedMidway = 0
    var removedInAll = 0
    var allExpected: [String: String] = [:]
    for kill in 0..<kills {
      // A card of its own each time: fixtures (duplicates, once the space holds them) and
      // photos made unique by a JPEG comment (new to the space).
      let card = folder + "/card-\(kill)"
      try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: true)
      var expected: [String: String] = [:]  // path → SHA-256
      for (number, name) in fixtures.enumerated() where random.next() % 2 == 0 {
        let path = card + "/\(number)-" + name
        try FileManager.default.copyItem(atPath: fixturesPath + "/" + name, toPath: path)
        expected[path] = sha256(try fileBytes(path))
      }
      for number in 0..<(2 + Int(random.next() % 4)) {
        let path = card + "/unique-\(number).jpg"
        let bytes = try uniqueJPEG(&random)
        try writeBytes(bytes, to: path)
        expected[path] = sha256(bytes)
      }
      allExpected.merge(expected) { $1 }
      let operation = ["add", "--move", "--quiet", card]
      let byStep = random.next() % 2 == 0
      let fraction = Double(random.next() % 1_000_000) / 1_000_000
      let run: VaultRun
      if try byStep && VaultRunner.hasStrace() {
        let steps = try stepsOnACopy(of: vault, card: card, operation, in: folder)
        run = try vault.runKilled(operation, at: steps[Int(fraction * Double(steps.count))])
      } else if let microseconds {
        run = try vault.run(operation, killAfter: Int(fraction * Double(microseconds)))
      } else {
        run = try vault.run(operation)
        XCTAssertEqual(run.status, 0, run.stderr)
        microseconds = run.microseconds
      }
      if run.status == SIGKILL { killedMidway += 1 }
      // Every photo of every card so far: at its path, whole, or in the space.
      let stored = try exportedHashes(vault, to: folder + "/out-\(kill)")
      removedInAll = 0
      for (path, hash) in allExpected.sorted(by: { $0.key < $1.key }) {
        if FileManager.default.fileExists(atPath: path) {
          XCTAssertEqual(sha256(try fileBytes(path)), hash, "kill \(kill) (seed \(seed)): \(path) changed")
        } else {
          removedInAll += 1
          XCTAssertTrue(stored.contains(hash), "kill \(kill) (seed \(seed)): \(path) is in neither place")
        }
      }
      try? FileManager.default.removeItem(atPath: folder + "/out-\(kill)")
      // What a run that was not killed reported is what happened.
      if run.status == 0 {
        XCTAssertEqual(
          try FileManager.default.contentsOfDirectory(atPath: card), [], "kill \(kill): \(run.stdout)")
      }
    }
    print(
      "add --move crash test: \(kills) runs (seed \(seed)), \(killedMidway) killed while running, \(removedInAll) sources removed"
    )
    XCTAssertGreaterThan(killedMidway, kills / 3, "most kills came too late to test anything")
    XCTAssertGreaterThan(removedInAll, 0)
    // A writer tidies what the kills left; then the space verifies.
    XCTAssertEqual(try vault.run(["select", "--none"]).status, 0)
    let verify = try vault.run(["verify"])
    XCTAssertEqual(verify.status, 0, verify.stdout)
  }

  /// A kill at each durable step of one move (measured on copies), each on fresh copies of
  /// the vault and the card: the kill lands at the same point of the same command, so every
  /// moment between a source's removal and the journal append before it is tried.
  func testAMoveKilledAtEachStepLosesNoPhoto() throws {
    try requireTool(VaultRunner.strace)
    let folder = try makeTemporaryFolder(self)
    let base = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try base.run(["add", fixturesPath + "/photo.jpg"]).status, 0)
    let card = folder + "/card"
    try FileManager.default.createDirectory(atPath: card, withIntermediateDirectories: true)
    var random = SeededGenerator(seed: 7)
    var expected: [String: String] = [:]  // name → SHA-256
    for number in 0..<3 {
      let bytes = try uniqueJPEG(&random)
      try writeBytes(bytes, to: card + "/unique-\(number).jpg")
      expected["unique-\(number).jpg"] = sha256(bytes)
    }
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: card + "/photo.jpg")
    expected["photo.jpg"] = sha256(try fileBytes(card + "/photo.jpg"))
    let steps = try stepsOnACopy(of: base, card: card, ["add", "--move", "--quiet", card], in: folder)
    XCTAssertGreaterThanOrEqual(steps.filter { $0.syscall == "unlink" }.count, 4, "\(steps)")
    for (number, step) in steps.enumerated() {
      let vault = VaultRunner(vault: folder + "/vault-\(number)", workingDirectory: folder)
      try FileManager.default.copyItem(atPath: base.vault, toPath: vault.vault)
      let killedCard = folder + "/card-\(number)"
      try FileManager.default.copyItem(atPath: card, toPath: killedCard)
      _ = try vault.runKilled(["add", "--move", "--quiet", killedCard], at: step)
      let stored = try exportedHashes(vault, to: folder + "/out-\(number)")
      for (name, hash) in expected.sorted(by: { $0.key < $1.key }) {
        let path = killedCard + "/" + name
        if FileManager.default.fileExists(atPath: path) {
          XCTAssertEqual(sha256(try fileBytes(path)), hash, "\(step): \(name) changed")
        } else {
          XCTAssertTrue(stored.contains(hash), "\(step): \(name) is in neither place")
        }
      }
      for path in [vault.vault, killedCard, folder + "/out-\(number)"] {
        try? FileManager.default.removeItem(atPath: path)
      }
    }
  }

  /// The SHA-256 of each original in the space.
  private func exportedHashes(_ vault: VaultRunner, to out: String) throws -> Set<String> {
    let run = try vault.run(["export", "--all", "--quiet", "--to", out])
    guard run.status == 0 else {
      XCTAssertTrue(run.stderr.contains("has no photos"), run.stderr)
      return []
    }
    return Set(
      try FileManager.default.contentsOfDirectory(atPath: out).map { sha256(try fileBytes(out + "/" + $0)) })
  }

  /// The durable steps of moving `card` into `vault`, counted on copies of both.
  private func stepsOnACopy(of vault: VaultRunner, card: String, _ operation: [String], in folder: String)
    throws
    -> [DurableStep]
  {
    let copy = VaultRunner(vault: folder + "/measured", workingDirectory: folder)
    let cardCopy = folder + "/measured-card"
    try FileManager.default.copyItem(atPath: vault.vault, toPath: copy.vault)
    try FileManager.default.copyItem(atPath: card, toPath: cardCopy)
    defer {
      try? FileManager.default.removeItem(atPath: copy.vault)
      try? FileManager.default.removeItem(atPath: cardCopy)
    }
    let (run, steps) = try copy.durableSteps(operation.dropLast() + [cardCopy])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertTrue(steps.contains { $0.syscall == "unlink" }, "\(steps)")
    return steps.isEmpty ? [DurableStep(syscall: "fsync", occurrence: 1)] : steps
  }

  /// Fixtures/photo.jpg with a comment segment of random bytes after its SOI marker: a
  /// valid JPEG that no other file equals.
  private func uniqueJPEG(_ random: inout SeededGenerator) throws -> [UInt8] {
    let photo = try fileBytes(fixturesPath + "/photo.jpg")
    let comment = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next() % 254) }
    return Array(photo[0..<2]) + [0xFF, 0xFE, 0, UInt8(comment.count + 2)] + comment + Array(photo[2...])
  }
}
