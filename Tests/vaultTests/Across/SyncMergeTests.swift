import Foundation
import XCTest

/// Two copies of one vault on two "machines", changed apart with the binary and merged as
/// file-sync engines merge folders: a union copy, `rsync -a` without `--delete`, and
/// unison (which propagates deletions). After each merge both copies list every photo
/// added on either side less every photo deleted on either side, with the latest selection
/// change of each photo, in the same order; they verify clean after one write that changes
/// nothing (an `add` of a photo already in the space: `verify --repair` would hide a writer
/// that leaves work undone, and a select or delete would change what is checked), and
/// export every photo bit for bit.
final class SyncMergeTests: XCTestCase {
  var folder = ""

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    try requireTool(Self.rsync)
    try requireTool(Self.unison)
  }

  static let rsync = "/usr/bin/rsync"
  static let unison = "/usr/bin/unison"

  // MARK: - Merges

  func testAUnionCopyBothWaysMergesAndAnOverwritingCopyChangesNothing() throws {
    let (a, b, history) = try changedApart()
    try assertNoFileWrittenByBoth(a, b, since: history)
    try sync([Self.rsync, "-a", "--ignore-existing", a.path + "/", b.path])
    try sync([Self.rsync, "-a", "--ignore-existing", b.path + "/", a.path])
    let merged = try snapshot(a.path)
    XCTAssertEqual(try snapshot(b.path), merged)
    // No file was written by both copies, so a copy that overwrites changes nothing more.
    try sync(["/bin/cp", "-a", a.path + "/.", b.path])
    try sync(["/bin/cp", "-a", b.path + "/.", a.path])
    XCTAssertEqual(try snapshot(a.path), merged)
    XCTAssertEqual(try snapshot(b.path), merged)
    try assertMerged(a, b, history)
  }

  func testRsyncBothWaysMerges() throws {
    let (a, b, history) = try changedApart()
    try rsyncBothWays(a, b)
    try assertMerged(a, b, history)
  }

  func testATwoWaySyncThatPropagatesDeletionsMergesWithoutConflicts() throws {
    let (a, b, history) = try changedApart { a, b in try self.unison(a, b) }
    let before = (a: try snapshot(a.path), b: try snapshot(b.path))
    try assertNoFileWrittenByBoth(a, b, since: history)
    try unison(a, b)
    let merged = try snapshot(a.path)
    XCTAssertEqual(try snapshot(b.path), merged)
    // What one side removed (blobs of deleted photos) is gone from the other too.
    let removedOnA = Set(history.base.keys).subtracting(before.a.keys)
    let removedOnB = Set(history.base.keys).subtracting(before.b.keys)
    XCTAssertFalse(removedOnA.isEmpty || removedOnB.isEmpty)
    XCTAssertEqual(removedOnA.union(removedOnB).intersection(merged.keys), [])
    // Nothing was brought back, so both verify before any write.
    for machine in [a, b] {
      let verify = try machine.run(["verify", "--quiet"])
      XCTAssertEqual(verify.status, 0, "\(machine.name): \(verify.stdout)")
    }
    try assertMerged(a, b, history)
  }

  /// Compaction on A (which removes every journal file A had) while B adds photos, merged
  /// by rsync (which brings the removed files back) and by unison (which removes them on B).
  func testCompactionOnOneCopyWhileTheOtherAddsLosesNothing() throws {
    let merges: [(JournalStaging.Trigger, String, (Machine, Machine) throws -> Void)] = [
      (.segmentCount, "rsync", rsyncBothWays), (.bytes, "unison", unison),
    ]
    for (trigger, name, merge) in merges {
      let (a, b, history) = try copies(in: name)
      if name == "unison" { try merge(a, b) }
      try a.select("photo.jpg", false)
      try b.add(["interlaced.png", "quad-422.jpg"])
      try a.add(["progressive.jpg"])
      try JournalStaging.makeCompactionDue(
        vault: a.path, password: a.password, photo: history.id("gray.jpg"), endingSelected: true, by: trigger)
      a.stagedSelection("gray.jpg", true)
      let journal = try a.spaceFolder() + "/Journal"
      let before = try FileManager.default.contentsOfDirectory(atPath: journal)
      // This write compacts the journal: one new snapshot replaces every file.
      try a.delete("rgba.png")
      let after = try FileManager.default.contentsOfDirectory(atPath: journal)
      XCTAssertEqual(after.count, 1, "\(name): \(after)")
      XCTAssertTrue(after.allSatisfy { $0.hasPrefix("s-") && !before.contains($0) }, "\(name): \(after)")
      try b.select("interlaced.png", true)
      try b.delete("palette.png")
      try b.add(["flat-teal.png"])
      try merge(a, b)
      try assertMerged(a, b, history)
      // The merged copies go on merging: each writes again, and they meet again.
      try a.add(["quad-444.jpg"])
      try b.select("gray.jpg", false)
      try merge(a, b)
      try assertMerged(a, b, history)
    }
  }

  /// The race docs/SYNC.md warns of: a compaction on A while a command on B still appends to
  /// a segment that a sync already brought to A. The compaction removes A's copy of it
  /// (it has read its first record) and B changes it: Unison reports a conflict and
  /// changes neither side; kept from B (the changed file), it merges with nothing lost,
  /// its first record applied twice with the same result.
  func testUnisonReportsTheCompactionRaceAsAConflictAndKeepingTheChangedFileMerges() throws {
    let (a, b, history) = try copies()
    try unison(a, b)
    let segment = try LongRunningSegment(vault: b.path, password: b.password)
    try segment.select(history.id("gray.png"), true)
    b.stagedSelection("gray.png", true)
    try unison(a, b)
    let onA = try a.spaceFolder() + "/Journal/" + segment.name
    XCTAssertTrue(FileManager.default.fileExists(atPath: onA))
    try JournalStaging.makeCompactionDue(
      vault: a.path, password: a.password, photo: history.id("gray.jpg"), endingSelected: true, by: .bytes)
    a.stagedSelection("gray.jpg", true)
    try a.delete("rgba.png")
    XCTAssertFalse(FileManager.default.fileExists(atPath: onA), "not compacted")
    try segment.select(history.id("photo.jpg"), false)
    b.stagedSelection("photo.jpg", false)
    let before = (a: try snapshot(a.path), b: try snapshot(b.path))
    let conflict = try unisonRun(a, b, also: [])
    XCTAssertNotEqual(conflict.status, 0, conflict.stdout)
    XCTAssertTrue(
      conflict.stdout.contains("<-?->") && conflict.stdout.contains(segment.name), conflict.stdout)
    // The segment is left as it was on both sides: gone from A, changed on B.
    let relative = URL(fileURLWithPath: try a.spaceFolder()).lastPathComponent + "/Journal/" + segment.name
    XCTAssertNil(before.a[relative])
    XCTAssertNil(try snapshot(a.path)[relative])
    XCTAssertEqual(try snapshot(b.path)[relative], before.b[relative])
    let kept = try unisonRun(a, b, also: ["-prefer", b.path])
    XCTAssertEqual(kept.status, 0, kept.stdout)
    XCTAssertTrue(FileManager.default.fileExists(atPath: onA))
    try assertMerged(a, b, history)
  }

  /// `vault passwd` on A while B imports with the old password: Unison reports the space's
  /// old folder (deleted on A, changed on B) as a conflict and changes neither side; kept
  /// from B, it comes back to A whole, key included. Nothing is lost, and nothing moves: the
  /// old password opens that folder with B's photo on both copies, the new one the rest.
  func testUnisonAfterAPasswordChangeWhileTheOtherCopyAddedKeepsBothFolders() throws {
    let (a, b, _) = try copies()
    try unison(a, b)
    let passwordFile = folder + "/new-password"
    try "new battery staple\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
    XCTAssertEqual(try a.run(["passwd", "--new-password-file", passwordFile]).status, 0)
    try b.add(["progressive.jpg"])
    let old = URL(fileURLWithPath: try b.spaceFolder()).lastPathComponent
    let conflict = try unisonRun(a, b, also: [])
    XCTAssertTrue(conflict.stdout.contains("<-?->") && conflict.stdout.contains(old), conflict.stdout)
    XCTAssertEqual(try unisonRun(a, b, also: ["-prefer", b.path]).status, 0)
    // The old folder came back whole, key included: a space of its own to the old
    // password, with B's photo; the new password opens the rest. A write with either
    // password folds neither into the other (PasswordChangeAcrossCopiesTests says why).
    for password in ["new battery staple", "correct horse"] {
      let write = try a.runner.run(["add", fixturesPath + "/gray.png"], password: password)
      XCTAssertTrue(write.stdout.contains("added 0 items, skipped 1 duplicate"), write.stdout + write.stderr)
    }
    try unison(a, b)
    for machine in [a, b] {
      let names = { (password: String) in
        try machine.runner.listJSON(password: password).compactMap { $0["name"] as? String }
      }
      XCTAssertTrue(try names("correct horse").contains("progressive.jpg"), machine.name)
      XCTAssertFalse(try names("new battery staple").contains("progressive.jpg"), machine.name)
      XCTAssertEqual(try machine.runner.spaceFolders().count, 2, machine.name)
    }
  }

  /// A photo deleted on A whose blobs B still holds: a union copy brings them back to A.
  /// The photo stays deleted, verify names the blobs, and A's next write removes them,
  /// whether the deletion is still in a journal segment or was compacted into a snapshot.
  func testBlobsOfADeletedPhotoThatASyncBringsBackGoAtTheNextWrite() throws {
    for compacted in [false, true] {
      let (a, b, history) = try copies(in: compacted ? "compacted" : "journal")
      try a.delete("palette.png")
      if compacted {
        try JournalStaging.makeCompactionDue(
          vault: a.path, password: a.password, photo: history.id("gray.jpg"), endingSelected: true, by: .bytes
        )
        a.stagedSelection("gray.jpg", true)
        try a.select("photo.jpg", false)
        let journal = try FileManager.default.contentsOfDirectory(atPath: try a.spaceFolder() + "/Journal")
        XCTAssertEqual(journal.count, 1, "not compacted: \(journal)")
      }
      try sync([Self.rsync, "-a", "--ignore-existing", b.path + "/", a.path])
      let id = history.id("palette.png")
      let space = try a.spaceFolder()
      let blobs = [space + "/Photo/" + id, space + "/Thumb/" + id]
      let exists = { (path: String) in FileManager.default.fileExists(atPath: path) }
      XCTAssertTrue(blobs.allSatisfy(exists), "compacted \(compacted)")
      XCTAssertEqual(try a.listing(), history.expected, "compacted \(compacted)")
      // Harmless (encrypted files of a deleted photo): named, but not a problem.
      let verify = try a.run(["verify"])
      XCTAssertEqual(verify.status, 0, verify.stdout)
      XCTAssertTrue(verify.stdout.contains("leftover of a deleted photo: Photo/\(id)"), verify.stdout)
      try a.writeNothing()
      XCTAssertFalse(blobs.contains(where: exists), "compacted \(compacted)")
      let clean = try a.run(["verify", "--quiet"])
      XCTAssertEqual(clean.status, 0, "compacted \(compacted): \(clean.stdout)")
      XCTAssertEqual(try a.listing(), history.expected, "compacted \(compacted)")
    }
  }

  /// Copies of a format-1 vault, each upgraded by its own first write, merge: their two
  /// journals hold the same photos and differ only in files of their own.
  func testCopiesOfAFormat1VaultUpgradedApartMerge() throws {
    try FileManager.default.copyItem(atPath: CompatibilityTests.committed, toPath: folder + "/base")
    let (a, b, history) = try copies(password: "compatibility v1")
    try a.select("photo.jpg", true)
    try b.add(["gray.png"])
    try b.select("palette.png", false)
    for machine in [a, b] {
      let space = try machine.spaceFolder()
      XCTAssertTrue(FileManager.default.fileExists(atPath: space + "/Journal"), machine.name)
      XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/index"), machine.name)
    }
    try assertNoFileWrittenByBoth(a, b, since: history)
    try rsyncBothWays(a, b)
    try assertMerged(a, b, history)
  }

  /// Each copy makes an album "Trip" apart (each gets an id of its own) and fills it; the
  /// merged copies show one album "Trip" with the photos of both, and a removal, a rename
  /// and a deletion made on either copy after the merge reach both of its ids.
  func testAlbumsOfOneNameMadeOnBothCopiesMergeIntoOne() throws {
    let (a, b, history) = try copies()
    let id = history.id
    for (machine, steps) in [
      (
        a,
        [
          ["album", "new", "Trip"], ["album", "add", "Trip", id("gray.png"), id("photo.jpg")],
          ["album", "new", "Only A"],
          ["album", "add", "Only A", id("rgba.png"), id("quad-420.jpg")],
        ]
      ),
      (
        b,
        [
          ["add", "--album", "Trip", fixturesPath + "/palette.png"],
          ["album", "add", "Trip", id("photo.jpg")],
          ["delete", "--now", id("quad-420.jpg"), "--yes"],
        ]
      ),
    ] {
      for arguments in steps {
        let run = try machine.run(arguments)
        XCTAssertEqual(run.status, 0, "\(machine.name) \(arguments): \(run.stderr)")
      }
    }
    history.deleted.insert(id("quad-420.jpg"))
    try assertNoFileWrittenByBoth(a, b, since: history)
    try rsyncBothWays(a, b)
    let expected = ["Only A": ["rgba.png"], "Trip": ["gray.png", "palette.png", "photo.jpg"]]
    for machine in [a, b] { XCTAssertEqual(try albums(machine), expected, machine.name) }
    try assertMerged(a, b, history)

    // After the merge: a removal on A (photo.jpg is in both ids), a rename on B.
    XCTAssertEqual(try a.run(["album", "remove", "Trip", id("photo.jpg")]).status, 0)
    XCTAssertEqual(try b.run(["album", "rename", "Trip", "Voyage"]).status, 0)
    try rsyncBothWays(a, b)
    for machine in [a, b] {
      XCTAssertEqual(
        try albums(machine), ["Only A": ["rgba.png"], "Voyage": ["gray.png", "palette.png"]], machine.name)
    }
    XCTAssertEqual(try a.run(["album", "delete", "Voyage"]).status, 0)
    try rsyncBothWays(a, b)
    for machine in [a, b] { XCTAssertEqual(try albums(machine), ["Only A": ["rgba.png"]], machine.name) }
    try assertMerged(a, b, history)
  }

  func albums(_ machine: Machine) throws -> [String: [String]] { try Self.albums(machine) }

  /// Each album's photos by name, as `list --json` gives the albums of each photo.
  static func albums(_ machine: Machine) throws -> [String: [String]] {
    let run = try machine.run(["list", "--json"])
    let objects = try VaultRunner.jsonObjects(run.stdout)
    var albums: [String: [String]] = [:]
    for object in objects {
      for album in object["albums"] as? [String] ?? [] {
        albums[album, default: []].append(object["name"] as? String ?? "")
      }
    }
    let listed = try machine.run(["album", "list"]).stdout
    // One line an album, or one line saying there is none.
    XCTAssertEqual(listed.split(separator: "\n").count, max(albums.count, 1), listed)
    return albums.mapValues { $0.sorted() }
  }

  // MARK: - The two machines

  /// A photo as `vault list --json` shows it.
  struct Photo: Equatable, CustomStringConvertible {
    var id: String
    var name: String
    var selected: Bool

    var description: String { "\(name)\(selected ? " (selected)" : "")" }
  }

  /// What both machines did, in the order they did it. A change is stamped with the time it
  /// was made, so the merge's latest selection of a photo is the last change here.
  final class History {
    /// Every file of the vault before it was copied, with its SHA-256.
    var base: [String: String] = [:]
    var basePhotos: [Photo] = []
    /// Photos added on either machine, in the order of the commands that added them.
    var added: [Photo] = []
    var deleted = Set<String>()
    /// Selection changes that changed something on the machine that made them.
    var selections: [(id: String, selected: Bool)] = []

    func id(_ name: String) -> String {
      (basePhotos + added).first { $0.name == name }!.id
    }

    var expected: [Photo] {
      var selected = Dictionary(uniqueKeysWithValues: basePhotos.map { ($0.id, $0.selected) })
      for change in selections { selected[change.id] = change.selected }
      return (basePhotos + added).filter { !deleted.contains($0.id) }.map {
        Photo(id: $0.id, name: $0.name, selected: selected[$0.id] ?? false)
      }
    }
  }

  /// One machine's copy of the vault; its commands are recorded in the shared history.
  final class Machine {
    let name: String
    let runner: VaultRunner
    let password: String
    let history: History
    /// This copy's own view of the selection.
    private var selected: [String: Bool]

    init(name: String, runner: VaultRunner, password: String, history: History) {
      self.name = name
      self.runner = runner
      self.password = password
      self.history = history
      selected = Dictionary(uniqueKeysWithValues: history.basePhotos.map { ($0.id, $0.selected) })
    }

    var path: String { runner.vault }

    func run(_ arguments: [String]) throws -> VaultRun {
      try runner.run(arguments, password: password)
    }

    func spaceFolder() throws -> String { try runner.spaceFolder() }

    func listing() throws -> [Photo] {
      let run = try self.run(["list", "--json"])
      XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
      let objects = try VaultRunner.jsonObjects(run.stdout)
      return objects.map {
        Photo(
          id: $0["id"] as? String ?? "", name: $0["name"] as? String ?? "",
          selected: $0["selected"] as? Bool ?? false)
      }
    }

    func add(_ fixtures: [String]) throws {
      let run = try self.run(["add"] + fixtures.map { fixturesPath + "/" + $0 })
      XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
      let new = try listing().filter { selected[$0.id] == nil }
      XCTAssertEqual(new.map(\.name), fixtures, name)
      history.added += new
      for photo in new { selected[photo.id] = false }
    }

    func delete(_ photo: String) throws {
      let id = history.id(photo)
      let run = try self.run(["delete", "--now", id, "--yes"])
      XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
      history.deleted.insert(id)
      selected[id] = nil
    }

    func select(_ photo: String, _ selection: Bool) throws {
      let id = history.id(photo)
      let run = try self.run([selection ? "select" : "unselect", id])
      XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
      stagedSelection(photo, selection)
    }

    /// Records a selection made on this machine.
    func stagedSelection(_ photo: String, _ selection: Bool) {
      let id = history.id(photo)
      if selected[id] != selection { history.selections.append((id, selection)) }
      selected[id] = selection
    }

    /// Takes the merged listing as this copy's own view.
    func adopt(_ photos: [Photo]) {
      selected = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0.selected) })
    }

    /// A write that changes nothing: the import of a photo the space holds already.
    func writeNothing() throws {
      let listed = try listing()
      let run = try self.run(["add", fixturesPath + "/" + listed[0].name])
      XCTAssertEqual(run.status, 0, "\(name): \(run.stderr)")
      XCTAssertTrue(run.stdout.contains("added 0 items, skipped 1 duplicate"), "\(name): \(run.stdout)")
      XCTAssertEqual(try listing(), listed, name)
    }
  }

  /// A vault at `base` (made with six photos, two selected, unless there is one), copied
  /// with `cp -a` to the folders A and B of `subfolder`.
  func copies(in subfolder: String = "", password: String = "correct horse") throws -> (
    Machine, Machine, History
  ) {
    let root = folder + (subfolder.isEmpty ? "" : "/" + subfolder)
    try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    let base = VaultRunner(vault: folder + "/base", workingDirectory: folder)
    if !FileManager.default.fileExists(atPath: base.vault) {
      XCTAssertEqual(try base.run(["init", "--kdf", "interactive"]).status, 0)
      let photos = ["gray.png", "rgba.png", "palette.png", "photo.jpg", "gray.jpg", "quad-420.jpg"]
      XCTAssertEqual(try base.run(["add"] + photos.map { fixturesPath + "/" + $0 }).status, 0)
      XCTAssertEqual(try base.run(["select", "2", "4"]).status, 0)
    }
    let history = History()
    history.base = try snapshot(base.vault)
    let listing = Machine(name: "base", runner: base, password: password, history: history)
    history.basePhotos = try listing.listing()
    var machines: [Machine] = []
    for name in ["A", "B"] {
      try sync(["/bin/cp", "-a", base.vault, root + "/" + name])
      machines.append(
        Machine(
          name: name, runner: VaultRunner(vault: root + "/" + name, workingDirectory: folder),
          password: password,
          history: history))
    }
    return (machines[0], machines[1], history)
  }

  /// Copies of one vault changed apart: each adds photos of its own and deletes one, and
  /// both change the selection of the same photos at different times.
  func changedApart(afterCopying baseline: (Machine, Machine) throws -> Void = { _, _ in }) throws -> (
    Machine, Machine, History
  ) {
    let (a, b, history) = try copies()
    try baseline(a, b)
    try a.add(["progressive.jpg", "quad-444.jpg", "rgb16.png"])
    try b.add(["interlaced.png", "quad-422.jpg", "flat-teal.png"])
    try a.delete("gray.png")
    try b.delete("palette.png")
    // rgba.png (selected): unselected on A, then unselected and selected again on B.
    try a.select("rgba.png", false)
    try b.select("rgba.png", false)
    try b.select("rgba.png", true)
    // gray.jpg: selected on B, then selected and unselected on A.
    try b.select("gray.jpg", true)
    try a.select("gray.jpg", true)
    try a.select("gray.jpg", false)
    // Selected on one machine, deleted on the other, before or after.
    try a.select("quad-420.jpg", true)
    try b.delete("quad-420.jpg")
    try b.select("gray.png", true)
    // Each selects one of its own new photos.
    try a.select("progressive.jpg", true)
    try b.select("flat-teal.png", true)
    return (a, b, history)
  }

  // MARK: - Checks

  /// No path holds different contents on the two machines, and no file of the vault they
  /// were copied from was changed on either: each writes only files of its own.
  func assertNoFileWrittenByBoth(
    _ a: Machine, _ b: Machine, since history: History, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let (onA, onB) = (try snapshot(a.path), try snapshot(b.path))
    let conflicts = onA.keys.filter { onB[$0] != nil && onB[$0] != onA[$0] }
    XCTAssertEqual(conflicts.sorted(), [], file: file, line: line)
    for (machine, files) in [(a, onA), (b, onB)] {
      let changed = history.base.keys.filter { files[$0] != nil && files[$0] != history.base[$0] }
      XCTAssertEqual(changed.sorted(), [], "\(machine.name) changed a file", file: file, line: line)
    }
    // Both did write files of their own.
    XCTAssertFalse(Set(onA.keys).subtracting(onB.keys).isEmpty, file: file, line: line)
    XCTAssertFalse(Set(onB.keys).subtracting(onA.keys).isEmpty, file: file, line: line)
  }

  func assertMerged(
    _ a: Machine, _ b: Machine, _ history: History, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    try Self.assertMerged(a, b, history, exportingIn: folder, file: file, line: line)
  }

  /// Both machines list what the history expects, in the same order; after a write that
  /// changes nothing both verify clean, and export every photo bit for bit (into new
  /// folders of `folder`).
  static func assertMerged(
    _ a: Machine, _ b: Machine, _ history: History, exportingIn folder: String,
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let expected = history.expected
    for machine in [a, b] {
      XCTAssertEqual(try machine.listing(), expected, machine.name, file: file, line: line)
      machine.adopt(expected)
    }
    for machine in [a, b] {
      try machine.writeNothing()
      let verify = try machine.run(["verify", "--quiet"])
      XCTAssertEqual(verify.status, 0, "\(machine.name): \(verify.stdout)", file: file, line: line)
      let target = folder + "/export-" + UUID().uuidString
      let export = try machine.run(["export", "--all", "--to", target])
      XCTAssertEqual(export.status, 0, "\(machine.name): \(export.stderr)", file: file, line: line)
      let exported = try FileManager.default.contentsOfDirectory(atPath: target)
      XCTAssertEqual(Set(exported), Set(expected.map(\.name)), machine.name, file: file, line: line)
      for name in exported {
        XCTAssertEqual(
          sha256(try fileBytes(target + "/" + name)), sha256(try fileBytes(fixturesPath + "/" + name)),
          "\(machine.name): \(name)", file: file, line: line)
      }
    }
  }

  func rsyncBothWays(_ a: Machine, _ b: Machine) throws {
    try sync([Self.rsync, "-a", a.path + "/", b.path])
    try sync([Self.rsync, "-a", b.path + "/", a.path])
  }

  /// Syncs A and B with unison, which must find no conflict. Its archive (the state of the
  /// last sync, which tells a deletion on one side from a file new on the other) lives in
  /// `$HOME/.unison`, here in the test's folder.
  func unison(_ a: Machine, _ b: Machine) throws {
    let home = folder + "/home"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    let run = try sync(
      [Self.unison, a.path, b.path, "-batch", "-auto", "-times", "-perms", "0", "-ui", "text"],
      environment: ["HOME": home])
    // A conflict is skipped (exit status 1), shown as "<-?->" and "[CONFLICT]"; the first
    // run's warning that differing files would be conflicts is no conflict.
    XCTAssertFalse(run.stdout.contains("<-?->") || run.stdout.contains("[CONFLICT]"), run.stdout)
  }

  /// Runs unison between A and B (as `unison` does) with `arguments` besides, whatever
  /// its status: what it printed, and its status.
  func unisonRun(_ a: Machine, _ b: Machine, also arguments: [String]) throws -> VaultRun {
    let home = folder + "/home"
    try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.unison)
    process.arguments =
      [a.path, b.path, "-batch", "-auto", "-times", "-perms", "0", "-ui", "text"] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(["HOME": home]) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return VaultRun(status: process.terminationStatus, stdout: text, stderr: "")
  }

  /// Runs a sync tool (or cp), its stderr with its stdout, which must end with status 0.
  @discardableResult
  func sync(
    _ command: [String], environment: [String: String] = [:], file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> VaultRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(
      process.terminationStatus, 0, "\(command.joined(separator: " ")): \(text)", file: file, line: line)
    return VaultRun(status: process.terminationStatus, stdout: text, stderr: "")
  }
}
