import Foundation
import XCTest

/// Kills `vault recover` and `vault recovery-key` with SIGKILL at each of their durable
/// steps (through strace, as `PasswdCrashTests` does), each on a fresh copy of one vault,
/// and checks that exactly one password opens the space with every photo, that the
/// recovery key still recovers it, and that the decoy space is untouched.
final class RecoveryCrashTests: XCTestCase {
  static let passwords = ["correct horse", "battery staple"]

  private var folder = ""

  private func photos(_ vault: VaultRunner, _ password: String) throws -> [String]? {
    let run = try vault.run(["list", "--json"], password: password)
    guard run.status == 0 else {
      XCTAssertEqual(run.status, 3, "\(password): \(run.stderr)")
      return nil
    }
    let objects = try VaultRunner.jsonObjects(run.stdout)
    return objects.map { ($0["id"] as? String ?? "") + " " + ($0["name"] as? String ?? "") }
  }

  private func file(_ name: String, _ contents: String) throws -> String {
    let path = folder + "/" + name
    try contents.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// A vault with the space of the first password (three photos, and the recovery key
  /// `init` printed) and a decoy.
  private func makeVault() throws -> (VaultRunner, key: String, expected: [String]) {
    let vault = VaultRunner(vault: folder + "/base", workingDirectory: folder)
    let made = try vault.run(["init", "--kdf", "interactive"])
    XCTAssertEqual(made.status, 0, made.stderr)
    let key = try XCTUnwrap(RecoveryTests.recoveryKey(in: made))
    XCTAssertEqual(try vault.run(["init"], password: "a decoy").status, 0)
    let add = try vault.run(["add"] + ["photo.jpg", "gray.png", "rgba.png"].map { fixturesPath + "/" + $0 })
    XCTAssertEqual(add.status, 0, add.stderr)
    return (vault, key, try XCTUnwrap(try photos(vault, Self.passwords[0])))
  }

  private func copy(of base: VaultRunner, _ name: String) throws -> VaultRunner {
    let vault = VaultRunner(vault: folder + "/" + name, workingDirectory: folder)
    try FileManager.default.copyItem(atPath: base.vault, toPath: vault.vault)
    return vault
  }

  /// The one password of the two that opens the space, after checking that exactly one
  /// does, with `expected`, and that the decoy opens its empty space.
  private func theOnePassword(_ vault: VaultRunner, expected: [String], _ what: String) throws -> Int? {
    let opened = try Self.passwords.map { try photos(vault, $0) }
    let opening = opened.indices.filter { opened[$0] != nil }
    XCTAssertEqual(opening.count, 1, "\(what): \(opening.count) passwords open the space")
    for index in opening { XCTAssertEqual(opened[index], expected, "\(what): photos") }
    XCTAssertEqual(try photos(vault, "a decoy"), [], "\(what): the decoy")
    return opening.first
  }

  /// Recovers a copy of `vault` with `key` to a third password, which must then open the
  /// space with `expected` (the copy is removed after).
  private func assertRecovers(_ vault: VaultRunner, key: String, expected: [String], _ what: String) throws {
    let trial = try copy(of: vault, "trial")
    defer { try? FileManager.default.removeItem(atPath: trial.vault) }
    let run = try trial.run(
      [
        "recover", "--recovery-key-file", try file("trial-key", key), "--new-password-file",
        try file("trial-new", "third one"),
      ], password: nil)
    XCTAssertEqual(run.status, 0, "\(what): the recovery key: \(run.stderr)")
    XCTAssertEqual(try photos(trial, "third one"), expected, "\(what): recovered")
  }

  /// A write with the password that opens the space settles what a kill left: no
  /// `key-next` and no temporary file remain, and the space verifies.
  private func assertSettled(_ vault: VaultRunner, by password: String, _ what: String) throws {
    XCTAssertEqual(try vault.run(["select", "1"], password: password).status, 0, what)
    for space in try vault.spaceFolders() {
      let names = try FileManager.default.contentsOfDirectory(atPath: space)
      XCTAssertFalse(names.contains("key-next"), "\(what): \(space)")
      XCTAssertFalse(names.contains { $0.hasPrefix(".tmp-") }, "\(what): \(names)")
      XCTAssertTrue(names.contains("recovery"), "\(what): \(names)")
    }
    let verify = try vault.run(["verify"], password: password)
    XCTAssertEqual(verify.status, 0, "\(what): \(verify.stdout)")
    XCTAssertFalse(verify.stdout.contains("unexpected"), "\(what): \(verify.stdout)")
  }

  func testARecoverKilledAtEachStepLeavesOnePasswordAndTheRecoveryKey() throws {
    try requireTool(VaultRunner.strace)
    folder = try makeTemporaryFolder(self)
    let (base, key, expected) = try makeVault()
    let operation = [
      "recover", "--recovery-key-file", try file("key", key + "\n"), "--new-password-file",
      try file("new", Self.passwords[1] + "\n"),
    ]
    let (measured, steps) = try copy(of: base, "measured").durableSteps(operation)
    XCTAssertEqual(measured.status, 0, measured.stderr)
    XCTAssertEqual(
      steps.filter { $0.syscall == "rename" }.count, 3, "key-next, the folder, the key: \(steps)")
    var outcomes: [Int] = []
    for (number, step) in steps.enumerated() {
      let vault = try copy(of: base, "killed-\(number)")
      let run = try vault.runKilled(operation, at: step)
      XCTAssertEqual(run.status, SIGKILL, "\(step): \(run.stderr)")
      guard let opening = try theOnePassword(vault, expected: expected, "\(step)") else { continue }
      outcomes.append(opening)
      try assertRecovers(vault, key: key, expected: expected, "\(step)")
      try assertSettled(vault, by: Self.passwords[opening], "\(step)")
      XCTAssertEqual(try theOnePassword(vault, expected: expected, "\(step), settled"), opening)
      try assertRecovers(vault, key: key, expected: expected, "\(step), settled")
      try FileManager.default.removeItem(atPath: vault.vault)
    }
    print("recover crash test: \(steps.count) durable steps, outcomes \(outcomes)")
    // The old password up to the folder's rename, the new one from then on.
    XCTAssertEqual(outcomes, outcomes.sorted(), "\(zip(steps, outcomes).map { "\($0): \($1)" })")
    XCTAssertTrue(outcomes.contains(0) && outcomes.contains(1), "\(outcomes)")
  }

  /// A kill at each step of `recovery-key`: the password opens the space as before; the
  /// old recovery key works until the new `recovery` file is renamed into place, and not
  /// after; and `recovery-key` run again then makes a key that works, the old one not.
  func testARecoveryKeyKilledAtEachStepLeavesThePasswordAndOneKey() throws {
    try requireTool(VaultRunner.strace)
    folder = try makeTemporaryFolder(self)
    let (base, key, expected) = try makeVault()
    // The main space's folder holds the photos; the password does not change here.
    let space = try XCTUnwrap(
      try base.spaceFolders().first {
        try FileManager.default.contentsOfDirectory(atPath: $0 + "/Photo").count == 3
      }
    ).dropFirst(base.vault.count)
    let oldFile = try fileBytes(base.vault + space + "/recovery")
    let (measured, steps) = try copy(of: base, "measured").durableSteps(["recovery-key"])
    XCTAssertEqual(measured.status, 0, measured.stderr)
    XCTAssertEqual(steps.filter { $0.syscall == "rename" }.count, 1, "the recovery file: \(steps)")
    var replaced: [Bool] = []
    for (number, step) in steps.enumerated() {
      let vault = try copy(of: base, "killed-\(number)")
      let run = try vault.runKilled(["recovery-key"], at: step)
      XCTAssertEqual(run.status, SIGKILL, "\(step): \(run.stderr)")
      XCTAssertEqual(try theOnePassword(vault, expected: expected, "\(step)"), 0)
      let current = try fileBytes(vault.vault + space + "/recovery")
      XCTAssertEqual(current.count, 77, "\(step)")
      replaced.append(current != oldFile)
      let trial = try copy(of: vault, "trial-old")
      let old = try trial.run(
        [
          "recover", "--recovery-key-file", try file("old-key", key), "--new-password-file",
          try file("n", "x y z"),
        ],
        password: nil)
      XCTAssertEqual(old.status, current == oldFile ? 0 : 3, "\(step): the old key: \(old.stderr)")
      try FileManager.default.removeItem(atPath: trial.vault)
      try assertSettled(vault, by: Self.passwords[0], "\(step)")
      let again = try vault.run(["recovery-key"])
      XCTAssertEqual(again.status, 0, "\(step): \(again.stderr)")
      try assertRecovers(
        vault, key: try XCTUnwrap(RecoveryTests.recoveryKey(in: again)), expected: expected, "\(step)")
      try FileManager.default.removeItem(atPath: vault.vault)
    }
    print("recovery-key crash test: \(steps.count) durable steps, replaced \(replaced)")
    XCTAssertEqual(replaced, replaced.sorted { !$0 && $1 }, "the old key until one step, the new one after")
    XCTAssertTrue(replaced.contains(false) && replaced.contains(true), "\(replaced)")
  }
}
