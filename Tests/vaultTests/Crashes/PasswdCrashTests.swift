import Foundation
import XCTest

/// Kills `vault passwd` with SIGKILL and checks, after every kill, that exactly one of the
/// two passwords opens the space, with every photo: never neither, never both. Kills land
/// at seeded moments (a fraction of an unkilled run's duration) and at seeded durable steps
/// (through strace, as `CrashTests` does): the renames take microseconds of a run that is
/// mostly key derivation, so only steps reach them reliably. `VAULT_TORTURE_KILLS` sets the
/// number of kills (default 24) and `VAULT_TORTURE_SEED` the seed.
final class PasswdCrashTests: XCTestCase {
  static let passwords = ["correct horse", "battery staple"]

  private struct Photo: Equatable {
    var id: String
    var name: String
  }

  private func photos(_ vault: VaultRunner, _ password: String) throws -> [Photo]? {
    let run = try vault.run(["list", "--json"], password: password)
    guard run.status == 0 else {
      XCTAssertEqual(run.status, 3, "\(password): \(run.stderr)")
      return nil
    }
    let objects = try VaultRunner.jsonObjects(run.stdout)
    return objects.map { Photo(id: $0["id"] as? String ?? "", name: $0["name"] as? String ?? "") }
  }

  /// The password of the two that opens the space, after checking that exactly one does,
  /// with `expected`, and that the decoy space is untouched.
  private func theOnePassword(
    _ vault: VaultRunner, expected: [Photo], _ what: String, file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> Int? {
    let opened = try Self.passwords.map { try photos(vault, $0) }
    let opening = opened.indices.filter { opened[$0] != nil }
    XCTAssertEqual(
      opening.count, 1, "\(what): \(opening.count) passwords open the space", file: file, line: line)
    for index in opening {
      XCTAssertEqual(opened[index], expected, "\(what): photos", file: file, line: line)
    }
    XCTAssertEqual(try photos(vault, "a decoy"), [], "\(what): the decoy", file: file, line: line)
    return opening.first
  }

  private func makeVault(in folder: String) throws -> (VaultRunner, [Photo]) {
    let vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["init"], password: "a decoy").status, 0)
    let add = try vault.run(["add"] + ["photo.jpg", "gray.png", "rgba.png"].map { fixturesPath + "/" + $0 })
    XCTAssertEqual(add.status, 0, add.stderr)
    return (vault, try photos(vault, Self.passwords[0]) ?? [])
  }

  private func passwd(to index: Int, in folder: String) throws -> [String] {
    let path = folder + "/new-password"
    try (Self.passwords[index] + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return ["passwd", "--new-password-file", path]
  }

  /// After a write command with the password that opens the space, nothing of a password
  /// change is left, and the space verifies.
  private func assertSettled(
    _ vault: VaultRunner, by password: String, _ what: String, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    XCTAssertEqual(
      try vault.run(["select", "1"], password: password).status, 0, what, file: file, line: line)
    for space in try vault.spaceFolders() {
      let names = try FileManager.default.contentsOfDirectory(atPath: space)
      XCTAssertFalse(names.contains("key-next"), "\(what): \(space)", file: file, line: line)
      XCTAssertFalse(names.contains { $0.hasPrefix(".tmp-") }, "\(what): \(names)", file: file, line: line)
    }
    let verify = try vault.run(["verify"], password: password)
    XCTAssertEqual(verify.status, 0, "\(what): \(verify.stdout)", file: file, line: line)
  }

  func testAKilledPasswdLeavesExactlyOnePassword() throws {
    let environment = ProcessInfo.processInfo.environment
    let kills = environment["VAULT_TORTURE_KILLS"].flatMap(Int.init).map { max(4, $0 / 2) } ?? 24
    let seed = environment["VAULT_TORTURE_SEED"].flatMap(UInt64.init) ?? 20_261_122
    var random = SeededGenerator(seed: seed ^ 0x9A55)
    let folder = try makeTemporaryFolder(self)
    let (vault, expected) = try makeVault(in: folder)
    XCTAssertEqual(expected.count, 3)
    var current = 0
    var microseconds: Int?
    var steps: [Int: [DurableStep]] = [:]
    var killedMidway = 0
    var counts = ["step": 0, "time": 0, "unkilled": 0]
    for kill in 0..<kills {
      let target = 1 - current
      let operation = try passwd(to: target, in: folder)
      let byStep = random.next() % 2 == 0
      let fraction = Double(random.next() % 1_000_000) / 1_000_000
      let run: VaultRun
      if try byStep && VaultRunner.hasStrace() {
        if steps[current] == nil {
          let copy = VaultRunner(vault: folder + "/measured", workingDirectory: folder)
          try FileManager.default.copyItem(atPath: vault.vault, toPath: copy.vault)
          let (measured, found) = try copy.durableSteps(operation, password: Self.passwords[current])
          try FileManager.default.removeItem(atPath: copy.vault)
          XCTAssertEqual(measured.status, 0, measured.stderr)
          XCTAssertTrue(found.contains { $0.syscall == "rename" }, "\(found)")
          steps[current] = found
        }
        let candidates = steps[current]!
        run = try vault.runKilled(
          operation, at: candidates[Int(fraction * Double(candidates.count))],
          password: Self.passwords[current])
        counts["step"]! += 1
      } else if let microseconds {
        run = try vault.run(
          operation, password: Self.passwords[current], killAfter: Int(fraction * Double(microseconds)))
        counts["time"]! += 1
      } else {
        run = try vault.run(operation, password: Self.passwords[current])
        XCTAssertEqual(run.status, 0, run.stderr)
        microseconds = run.microseconds
        counts["unkilled"]! += 1
      }
      if run.status == SIGKILL { killedMidway += 1 }
      let what = "kill \(kill) (seed \(seed)), \(Self.passwords[current]) to \(Self.passwords[target])"
      guard let opening = try theOnePassword(vault, expected: expected, what) else { return }
      if run.status == 0 { XCTAssertEqual(opening, target, what) }
      current = opening
      // Half the time a writer comes next and settles what the kill left; otherwise the
      // next passwd starts from it.
      if random.next() % 2 == 0 {
        try assertSettled(vault, by: Self.passwords[current], what)
        XCTAssertEqual(try theOnePassword(vault, expected: expected, what + ", settled"), current)
      }
    }
    print(
      "passwd crash test: \(kills) runs (seed \(seed)), \(killedMidway) killed while running: "
        + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    XCTAssertGreaterThan(killedMidway, kills / 3, "most kills came too late to test anything")
    try assertSettled(vault, by: Self.passwords[current], "at the end")
  }

  /// Every durable step of a password change in turn, on a fresh copy each time: exactly
  /// one password opens the space, and a writer then leaves nothing of the change behind.
  func testAPasswdKilledAtEachStepLeavesExactlyOnePassword() throws {
    try requireTool(VaultRunner.strace)
    let folder = try makeTemporaryFolder(self)
    let (base, expected) = try makeVault(in: folder)
    let operation = try passwd(to: 1, in: folder)
    func copy(_ name: String) throws -> VaultRunner {
      let vault = VaultRunner(vault: folder + "/" + name, workingDirectory: folder)
      try FileManager.default.copyItem(atPath: base.vault, toPath: vault.vault)
      return vault
    }
    let (measured, steps) = try copy("measured").durableSteps(operation)
    XCTAssertEqual(measured.status, 0, measured.stderr)
    XCTAssertEqual(
      steps.filter { $0.syscall == "rename" }.count, 3, "key-next, the folder, the key: \(steps)")
    var outcomes: [Int] = []
    for (number, step) in steps.enumerated() {
      let vault = try copy("killed-\(number)")
      let run = try vault.runKilled(operation, at: step)
      XCTAssertEqual(run.status, SIGKILL, "\(step): \(run.stderr)")
      guard let opening = try theOnePassword(vault, expected: expected, "\(step)") else { continue }
      outcomes.append(opening)
      try assertSettled(vault, by: Self.passwords[opening], "\(step)")
      XCTAssertEqual(try theOnePassword(vault, expected: expected, "\(step), settled"), opening)
      try FileManager.default.removeItem(atPath: vault.vault)
    }
    // The old password up to the folder's rename, the new one from then on.
    XCTAssertEqual(outcomes, outcomes.sorted(), "\(zip(steps, outcomes).map { "\($0): \($1)" })")
    XCTAssertTrue(outcomes.contains(0) && outcomes.contains(1), "\(outcomes)")
  }
}
