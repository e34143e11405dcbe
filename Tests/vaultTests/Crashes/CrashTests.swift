import Foundation
import XCTest

/// Kills `vault add`, `delete`, `select`, `export` and `verify --repair` with SIGKILL at
/// random (seeded) moments, and checks after every kill that nothing reported is lost and
/// nothing half-done is visible. `VAULT_TORTURE_KILLS` sets the number of kills (default
/// 50; `make torture` runs 500) and `VAULT_TORTURE_SEED` the seed.
///
/// Kill moments do not depend on the machine's speed: each kind of command is first run
/// unkilled, on the spot, and timed; a kill comes at a seeded fraction of that duration.
/// Durations are measured again every few kills of a kind, as the space grows. After each
/// unkilled write the space must verify intact: a writer cleans up what a killed one left.
///
/// Compaction is a small part of the command that does it, so a kill at a moment in time
/// would seldom land in it. For those steps the journal is first brought to where the next
/// change compacts it (`JournalStaging`), and the kill comes at a seeded durable step of
/// the command (a rename, unlink, fsync…, through strace), counted on a copy of the vault
/// in the same state. The same kind of kill lands at every step of a format-1 space's
/// upgrade in `testAnUpgradeKilledAtAnyStepLosesNothing`.
final class CrashTests: XCTestCase {
  func testKilledCommandsLoseNothingReported() throws {
    let environment = ProcessInfo.processInfo.environment
    let kills = environment["VAULT_TORTURE_KILLS"].flatMap(Int.init) ?? 50
    let seed = environment["VAULT_TORTURE_SEED"].flatMap(UInt64.init) ?? 20_261_122
    var random = SeededGenerator(seed: seed)
    // Compactions are drawn apart, so that a seed replays the commands it replayed before.
    var compactions = SeededGenerator(seed: seed ^ 0xC0)
    let folder = try makeTemporaryFolder(self)
    let vault = try VaultRunner.initialized(in: folder)
    let sources = try FileManager.default.contentsOfDirectory(atPath: fixturesPath)
      .filter { ($0.hasSuffix(".jpg") || $0.hasSuffix(".png")) }.sorted().map { fixturesPath + "/" + $0 }
    var sourceHashes: [String: String] = [:]  // sha256 → file
    for path in sources { sourceHashes[sha256(try fileBytes(path))] = path }

    /// Photos whose import was reported, and that no delete has touched since.
    var mustContain = Set<String>()
    var counts = [String: Int]()
    var interrupted = 0
    /// The last unkilled duration of each kind of command, in microseconds, and how many
    /// kills of that kind have been drawn from it.
    var measured: [String: (microseconds: Int, uses: Int)] = [:]
    var kill = 0
    var step = 0
    while kill < kills {
      step += 1
      var operation: [String]
      var compaction: JournalStaging.Trigger?
      switch random.next() % 11 {
      case 0...3:
        let start = Int(random.next() % UInt64(sources.count))
        operation = ["add"] + (0..<12).map { sources[(start + $0) % sources.count] }
      case 4...5:
        operation = ["delete", "--selected", "--yes"]
      case 6...7:
        let first = 1 + Int(random.next() % 6)
        operation = ["select", "\(first)-\(first + Int(random.next() % 4))"]
        // Half the selects come after a journal that is due for compaction.
        if compactions.next() % 2 == 0 {
          compaction = compactions.next() % 2 == 0 ? .segmentCount : .bytes
          operation = ["select", "--invert"]
        }
      case 8...9:
        operation = ["export", "--all", "--to", "out-\(step)"]
      default:
        operation = ["verify", "--repair", "--quiet"]
      }
      var kind = operation[0] == "verify" ? "repair" : operation[0]
      // Drawn whether or not it is used, so that a seed replays the same commands.
      let fraction = Double(random.next() % 1_000_000) / 1_000_000
      let before = try listing(vault)
      if operation[0] == "delete" {
        for entry in before where entry.selected { mustContain.remove(entry.name) }
      }
      if let compaction, let first = before.first {
        // Its selection is left as it is, and `select --invert` changes every photo's.
        try JournalStaging.makeCompactionDue(
          vault: vault.vault, password: "correct horse", photo: first.id, endingSelected: first.selected,
          by: compaction)
        kind = "compact"
      }
      let run: VaultRun
      if try kind == "compact" && VaultRunner.hasStrace() {
        let steps = try stepsOnACopy(of: vault, operation, in: folder)
        run = try vault.runKilled(operation, at: steps[Int(fraction * Double(steps.count))])
        kill += 1
        counts[kind, default: 0] += 1
        if run.status == SIGKILL { interrupted += 1 }
      } else if let timing = measured[kind], timing.uses < Self.killsPerMeasurement {
        run = try vault.runKilled(operation, afterMicroseconds: Int(fraction * Double(timing.microseconds)))
        measured[kind]!.uses += 1
        kill += 1
        counts[kind, default: 0] += 1
        if run.status == SIGKILL { interrupted += 1 }
      } else {
        run = try vault.run(operation)
        measured[kind] = (run.microseconds, 0)
      }
      for line in run.stdout.split(separator: "\n") where line.hasPrefix("added /") {
        mustContain.insert((String(line.dropFirst(6)) as NSString).lastPathComponent)
      }
      // The space opens, and lists every photo whose import was reported.
      let after = try listing(vault)
      let names = Set(after.map(\.name))
      XCTAssertTrue(
        mustContain.isSubset(of: names),
        "step \(step) (\(operation[0])): lost \(mustContain.subtracting(names))")
      XCTAssertEqual(after.count, Set(after.map(\.id)).count, "step \(step): a photo listed twice")
      // Nothing half-done is listed: every listed photo authenticates to its last byte.
      let verify = try vault.run(["verify", "--quiet"])
      let broken = verify.stdout.split(separator: "\n").filter {
        $0.hasPrefix("damaged") || $0.hasPrefix("missing") || $0.hasPrefix("listed twice")
      }
      XCTAssertEqual(broken, [], "step \(step) (\(operation[0]))")
      // A write that ran to its end leaves the space intact, whatever killed ones left.
      if run.status != SIGKILL && kind != "export" {
        XCTAssertEqual(verify.status, 0, "after an unkilled \(kind), step \(step): \(verify.stdout)")
      }
      // An export folder holds only complete photos.
      if operation[0] == "export", FileManager.default.fileExists(atPath: folder + "/" + operation[3]) {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/" + operation[3]) {
          let bytes = try fileBytes(folder + "/" + operation[3] + "/" + name)
          XCTAssertNotNil(sourceHashes[sha256(bytes)], "step \(step): incomplete export file \(name)")
        }
      }
    }
    print(
      "crash test: \(kills) kills (seed \(seed)), \(interrupted) while the command ran, "
        + "\(step - kills) runs timed: "
        + counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    XCTAssertGreaterThan(interrupted, kills / 2, "most kills came too late to test anything")
    // Any write cleans up what the kills left; then the space verifies and exports bit
    // for bit.
    XCTAssertEqual(try vault.run(["select", "--none"]).status, 0)
    let final = try vault.run(["verify", "--quiet"])
    XCTAssertEqual(final.status, 0, final.stdout)
    let export = try vault.run(["export", "--all", "--to", "final"])
    XCTAssertEqual(export.status == 0 || export.stderr.contains("no photos"), true, export.stderr)
    if FileManager.default.fileExists(atPath: folder + "/final") {
      for name in try FileManager.default.contentsOfDirectory(atPath: folder + "/final") {
        XCTAssertEqual(
          sourceHashes[sha256(try fileBytes(folder + "/final/" + name))].map {
            ($0 as NSString).lastPathComponent
          }, name)
      }
    }
  }

  /// How many kills of a kind are drawn from one measured duration before it is measured
  /// again.
  static let killsPerMeasurement = 4

  /// The durable steps of `operation` run to its end on a copy of `vault`.
  private func stepsOnACopy(of vault: VaultRunner, _ operation: [String], in folder: String) throws
    -> [DurableStep]
  {
    let copy = VaultRunner(vault: folder + "/measured", workingDirectory: folder)
    try FileManager.default.copyItem(atPath: vault.vault, toPath: copy.vault)
    defer { try? FileManager.default.removeItem(atPath: copy.vault) }
    let (run, steps) = try copy.durableSteps(operation)
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertFalse(steps.isEmpty, "strace saw no durable step")
    return steps.isEmpty ? [DurableStep(syscall: "fsync", occurrence: 1)] : steps
  }

  /// Kills a write on a copy of the committed format-1 vault (Tests/Compatibility) before
  /// each durable step in turn: the space opens as format 1 or 2 with its three photos, and
  /// a write then leaves format 2, intact, with nothing of format 1 or of the kill left.
  func testAnUpgradeKilledAtAnyStepLosesNothing() throws {
    try requireTool(VaultRunner.strace)
    let folder = try makeTemporaryFolder(self)
    let password = "compatibility v1"
    let names = ["photo.jpg", "palette.png", "orientation-6.jpg"]
    let operation = ["unselect", "2"]
    func copy(_ name: String) throws -> VaultRunner {
      let vault = VaultRunner(vault: folder + "/" + name, workingDirectory: folder)
      try FileManager.default.copyItem(atPath: CompatibilityTests.committed, toPath: vault.vault)
      return vault
    }
    let (measured, steps) = try copy("measured").durableSteps(operation, password: password)
    XCTAssertEqual(measured.status, 0, measured.stderr)
    XCTAssertTrue(steps.contains { $0.syscall == "rename" }, "\(steps)")
    for (number, step) in steps.enumerated() {
      let vault = try copy("killed-\(number)")
      let space = vault.vault + "/" + Self.spaceTag
      let run = try vault.runKilled(operation, at: step, password: password)
      XCTAssertEqual(run.status, SIGKILL, "\(step): \(run.stderr)")
      let format1 = FileManager.default.fileExists(atPath: space + "/index")
      let format2 = FileManager.default.fileExists(atPath: space + "/Journal")
      XCTAssertTrue(format1 || format2, "\(step)")
      // Nothing lost: the photos, and palette.png's selection before or after the change.
      let entries = try vault.listJSON(password: password)
      XCTAssertEqual(entries.compactMap { $0["name"] as? String }, names, "\(step)")
      XCTAssertEqual(
        entries.compactMap { $0["selected"] as? Bool }.enumerated().filter { $0.offset != 1 }.map(\.element),
        [false, false], "\(step)")
      let write = try vault.run(["add", fixturesPath + "/photo.jpg"], password: password)
      XCTAssertEqual(write.status, 0, "\(step): \(write.stderr)")
      let verify = try vault.run(["verify"], password: password)
      XCTAssertEqual(verify.status, 0, "\(step): \(verify.stdout)")
      XCTAssertEqual(verify.stdout.split(separator: "\n").filter { $0.hasPrefix("ok: ") }.count, 3, "\(step)")
      let files = FileManager.default.enumerator(atPath: vault.vault)?.allObjects as? [String] ?? []
      XCTAssertEqual(
        files.filter { ($0 as NSString).lastPathComponent.hasPrefix(".tmp-") || $0.hasSuffix("/index") }, [],
        "\(step)")
      XCTAssertTrue(FileManager.default.fileExists(atPath: space + "/Journal"), "\(step)")
      try FileManager.default.removeItem(atPath: vault.vault)
    }
  }

  /// A killed writer's mark and temporary files, and a writer that tidies them killed at
  /// each of its durable steps (on fresh copies): the next writer finishes the tidy, so
  /// the space verifies with no temporary file left. A tidy killed after it removed the
  /// mark, before the files, left them for good (seen once in MoveCrashTests).
  func testATidyKilledAtAnyStepIsFinishedByTheNextWriter() throws {
    try requireTool(VaultRunner.strace)
    let folder = try makeTemporaryFolder(self)
    let base = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try base.run(["add", fixturesPath + "/photo.jpg"]).status, 0)
    let space = try XCTUnwrap(base.spaceFolders().first)
    for leftover in [
      "/.tmp-writer-0123456789abcdef", "/Photo/.tmp-0123456789abcdef", "/Thumb/.tmp-fedcba9876543210",
    ] {
      try writeBytes([1, 2, 3], to: space + leftover)
    }
    let operation = ["select", "--none"]
    func copy(_ name: String) throws -> VaultRunner {
      let vault = VaultRunner(vault: folder + "/" + name, workingDirectory: folder)
      try FileManager.default.copyItem(atPath: base.vault, toPath: vault.vault)
      return vault
    }
    let (measured, steps) = try copy("measured").durableSteps(operation)
    XCTAssertEqual(measured.status, 0, measured.stderr)
    XCTAssertGreaterThanOrEqual(steps.filter { $0.syscall == "unlink" }.count, 3, "\(steps)")
    for (number, step) in steps.enumerated() {
      let vault = try copy("killed-\(number)")
      XCTAssertEqual(try vault.runKilled(operation, at: step).status, SIGKILL, "\(step)")
      let next = try vault.run(operation)
      XCTAssertEqual(next.status, 0, "\(step): \(next.stderr)")
      let verify = try vault.run(["verify"])
      XCTAssertEqual(verify.status, 0, "\(step): \(verify.stdout)")
      let files = FileManager.default.enumerator(atPath: vault.vault)?.allObjects as? [String] ?? []
      XCTAssertEqual(files.filter { ($0 as NSString).lastPathComponent.hasPrefix(".tmp-") }, [], "\(step)")
      try FileManager.default.removeItem(atPath: vault.vault)
    }
  }

  /// The folder name of the committed format-1 vault's one space.
  private static let spaceTag = "8f57e8a2369c1c0282d24108bf8c1c28"

  private struct Entry {
    var id: String
    var name: String
    var selected: Bool
  }

  private func listing(_ vault: VaultRunner) throws -> [Entry] {
    try vault.listJSON().map {
      Entry(
        id: $0["id"] as? String ?? "", name: $0["name"] as? String ?? "",
        selected: $0["selected"] as? Bool ?? false)
    }
  }
}
