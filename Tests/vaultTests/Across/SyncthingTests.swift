import Foundation
import XCTest

/// One vault on two "machines" kept together by two real Syncthing instances (Debian's,
/// loopback only: see `SyncthingPair`), changed with the built binary on both sides. After
/// every step the engines are asked to scan and waited for until both are idle and in sync
/// (`SyncthingPair.settle`), never for a fixed time. Each scenario ends with both copies
/// listing the same photos, selections and albums as the history of both machines says,
/// `vault verify` intact on both, every photo exported bit for bit, and no
/// `.sync-conflict-*` file anywhere.
///
/// One pair of instances serves the whole class (starting one takes a few seconds); each
/// test has a vault of its own in the shared folder. The machines are SyncMergeTests'.
final class SyncthingTests: XCTestCase {
  typealias Machine = SyncMergeTests.Machine
  typealias History = SyncMergeTests.History

  nonisolated(unsafe) private static var sharedPair: SyncthingPair?
  nonisolated(unsafe) private static var sharedRoot: String?
  var pair: SyncthingPair!
  /// This test's own folder, for exports and password files.
  var folder = ""

  override func setUpWithError() throws {
    for tool in [SyncthingPair.syncthing, SyncthingPair.setpriv, SyncthingPair.curl] { try requireTool(tool) }
    folder = try makeTemporaryFolder(self)
    if Self.sharedPair == nil {
      let root = NSTemporaryDirectory() + "vault-syncthing-" + UUID().uuidString
      Self.sharedRoot = root
      Self.sharedPair = try SyncthingPair(root: root)
    }
    pair = Self.sharedPair
  }

  override class func tearDown() {
    sharedPair?.stop()
    sharedPair = nil
    if let root = sharedRoot { try? FileManager.default.removeItem(atPath: root) }
    sharedRoot = nil
    super.tearDown()
  }

  // MARK: - Scenarios

  func testTheVaultReachesTheSecondMachine() throws {
    let (a, b, history) = try vaultOnBothMachines()
    try assertInSync(a, b, history)
  }

  func testAddsOnBothSidesAtOnceMerge() throws {
    let (a, b, history) = try vaultOnBothMachines()
    try a.add(["progressive.jpg", "quad-444.jpg"])
    try b.add(["interlaced.png", "quad-422.jpg"])
    try a.select("progressive.jpg", true)
    try assertInSync(a, b, history)
  }

  /// A deletion, selections and albums made on both sides before the engines meet, then a
  /// deletion of a photo in an album after.
  func testDeletionsSelectionsAndAlbumsMerge() throws {
    let (a, b, history) = try vaultOnBothMachines()
    try a.delete("gray.png")
    try b.select("gray.jpg", true)
    try a.select("rgba.png", false)
    try run(a, ["album", "new", "Trip"])
    try run(a, ["album", "add", "Trip", history.id("photo.jpg"), history.id("quad-420.jpg")])
    try run(b, ["add", "--album", "Trip", fixturesPath + "/palette.png"])
    try assertInSync(a, b, history, albums: ["Trip": ["palette.png", "photo.jpg", "quad-420.jpg"]])
    try b.delete("quad-420.jpg")
    try b.select("photo.jpg", false)
    try assertInSync(a, b, history, albums: ["Trip": ["palette.png", "photo.jpg"]])
  }

  /// A compaction on A (one new snapshot replaces every journal file A had, and Syncthing
  /// removes them on B too) while B adds, deletes and selects: nothing B did is lost.
  func testCompactionOnOneSideWhileTheOtherAddsLosesNothing() throws {
    let (a, b, history) = try vaultOnBothMachines()
    try b.add(["interlaced.png", "quad-422.jpg"])
    try JournalStaging.makeCompactionDue(
      vault: a.path, password: a.password, photo: history.id("gray.jpg"), endingSelected: true,
      by: .segmentCount)
    a.stagedSelection("gray.jpg", true)
    try a.add(["progressive.jpg"])
    let journal = try a.spaceFolder() + "/Journal"
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: journal).count, 1, "not compacted")
    try b.select("interlaced.png", true)
    try b.delete("palette.png")
    try assertInSync(a, b, history)
    // They go on merging: each writes again.
    try a.add(["quad-444.jpg"])
    try b.select("gray.jpg", false)
    try assertInSync(a, b, history)
  }

  /// The race docs/SYNC.md warns of: a compaction on A while a command on B still appends to
  /// a segment that the engine already brought to A. The compaction removes A's copy (it
  /// has read its first record) and B changes it: Syncthing prefers the change to the
  /// deletion and brings the whole segment back to A, whose first record then applies
  /// twice with the same result; no conflict file.
  func testTheCompactionRaceKeepsTheChangedSegment() throws {
    let (a, b, history) = try vaultOnBothMachines()
    let segment = try LongRunningSegment(vault: b.path, password: b.password)
    try segment.select(history.id("gray.png"), true)
    b.stagedSelection("gray.png", true)
    try pair.settle()
    let onA = try a.spaceFolder() + "/Journal/" + segment.name
    XCTAssertTrue(FileManager.default.fileExists(atPath: onA))
    try JournalStaging.makeCompactionDue(
      vault: a.path, password: a.password, photo: history.id("gray.jpg"), endingSelected: true, by: .bytes)
    a.stagedSelection("gray.jpg", true)
    try a.delete("rgba.png")
    XCTAssertFalse(FileManager.default.fileExists(atPath: onA), "not compacted")
    try segment.select(history.id("photo.jpg"), false)
    b.stagedSelection("photo.jpg", false)
    try assertInSync(a, b, history)
    XCTAssertTrue(FileManager.default.fileExists(atPath: onA))
  }

  /// `vault passwd` on A renames the space's folder (docs/FORMAT.md), which Syncthing
  /// carries to B as the old folder's files deleted and the new folder's made. Before the
  /// sync, B's copy opens with the old password only, and the new one is refused with a
  /// hint that a change made elsewhere arrives with the sync. B adds a photo meanwhile,
  /// into the old folder: Syncthing cannot delete that folder on B, and brings it back to A
  /// holding only B's new files, with no key. After the sync the old password opens nothing
  /// on either side (refused as any wrong password is), and the new one opens the whole
  /// space, B's photo included: the first command moves the files the rename left behind
  /// into the space, and the engines settle on one space folder.
  func testAPasswordChangedOnOneSideOpensTheOtherOnceSynced() throws {
    let (a, b, history) = try vaultOnBothMachines()
    let newPassword = "new battery staple"
    let passwordFile = folder + "/new-password"
    try (newPassword + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
    let oldFolder = URL(fileURLWithPath: try a.spaceFolder()).lastPathComponent
    try run(a, ["passwd", "--new-password-file", passwordFile])
    let early = try b.runner.run(["list"], password: newPassword)
    XCTAssertEqual(early.status, 3, early.stdout)
    XCTAssertEqual(early.stderr, "error: no space opens with this password\n" + Self.changedElsewhereHint)
    try b.add(["progressive.jpg"])
    try pair.settle()
    for machine in [a, b] {
      let old = try machine.run(["list"])
      XCTAssertEqual(old.status, 3, "\(machine.name): \(old.stdout)")
      XCTAssertEqual(
        old.stderr, PasswordChangeAcrossCopiesTests.keyMissing(machine.path + "/" + oldFolder), machine.name)
    }
    let (newA, newB) = (
      Machine(name: "A", runner: a.runner, password: newPassword, history: history),
      Machine(name: "B", runner: b.runner, password: newPassword, history: history)
    )
    try assertInSync(newA, newB, history)
    for machine in [a, b] { XCTAssertEqual(try machine.runner.spaceFolders().count, 1, machine.name) }
  }

  /// A `vault mount` open on A while B writes: what B adds and deletes reaches A through
  /// Syncthing and shows in A's mount (read back as B's file) within seconds, nothing the
  /// engine or the mount does makes a conflict, and SIGTERM leaves no mount behind.
  func testAMountOnOneSideShowsWhatTheOtherWrites() throws {
    let (a, b, history) = try vaultOnBothMachines()
    let mountPoint = folder + "/mnt"
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    let mount = try a.runner.start(["mount", mountPoint], password: a.password)
    defer {
      if MountTests.isMounted(mountPoint) {
        _ = try? MountTests.runTool("/usr/bin/fusermount3", ["-uz", mountPoint])
      }
    }
    XCTAssertNotNil(mount.waitForLine { $0.contains("mounted") }, "vault mount did not start")
    let photos = mountPoint + "/Photos"
    XCTAssertTrue(shows(photos) { $0.contains("gray.png") })
    try b.add(["progressive.jpg"])
    try b.delete("gray.png")
    try pair.settle()
    XCTAssertTrue(
      shows(photos) { $0.contains("progressive.jpg") && !$0.contains("gray.png") },
      "A's mount never showed B's changes")
    XCTAssertEqual(
      FileManager.default.contents(atPath: photos + "/progressive.jpg"),
      FileManager.default.contents(atPath: fixturesPath + "/progressive.jpg"))
    try assertInSync(a, b, history)
    mount.send(SIGTERM)
    XCTAssertEqual(try mount.finish().status, 0)
    XCTAssertFalse(MountTests.isMounted(mountPoint), "SIGTERM left the mount behind")
  }

  /// Whether the names in `folder` come to satisfy `condition` within 30 s (the mount takes
  /// in changes a second or so after they land; a loaded machine takes longer).
  private func shows(_ folder: String, _ condition: (Set<String>) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(30)
    repeat {
      if condition(Set((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])) { return true }
      usleep(50_000)
    } while Date() < deadline
    return false
  }

  static let changedElsewhereHint =
    "hint: if this vault is kept in sync and its password was changed on another copy, the new password opens this copy once the sync has brought the change here\n"

  // MARK: - The machines

  /// A vault made on A (six photos, two selected) in a folder of its own in the shared
  /// folder; once the engines settle, B lists the same photos.
  func vaultOnBothMachines(file: StaticString = #filePath, line: UInt = #line) throws -> (
    Machine, Machine, History
  ) {
    let name = "vault-" + UUID().uuidString.prefix(8)
    let onA = VaultRunner(vault: pair.instances[0].folder + "/" + name, workingDirectory: folder)
    XCTAssertEqual(try onA.run(["init", "--kdf", "interactive"]).status, 0, file: file, line: line)
    let photos = ["gray.png", "rgba.png", "palette.png", "photo.jpg", "gray.jpg", "quad-420.jpg"]
    XCTAssertEqual(
      try onA.run(["add"] + photos.map { fixturesPath + "/" + $0 }).status, 0, file: file, line: line)
    XCTAssertEqual(try onA.run(["select", "2", "4"]).status, 0, file: file, line: line)
    let history = History()
    let a = Machine(name: "A", runner: onA, password: "correct horse", history: history)
    history.basePhotos = try a.listing()
    a.adopt(history.basePhotos)
    let onB = VaultRunner(vault: pair.instances[1].folder + "/" + name, workingDirectory: folder)
    let b = Machine(name: "B", runner: onB, password: "correct horse", history: history)
    try pair.settle(file: file, line: line)
    XCTAssertEqual(try b.listing(), history.basePhotos, "B", file: file, line: line)
    b.adopt(history.basePhotos)
    return (a, b, history)
  }

  func run(_ machine: Machine, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line)
    throws
  {
    let run = try machine.run(arguments)
    XCTAssertEqual(run.status, 0, "\(machine.name) \(arguments): \(run.stderr)", file: file, line: line)
  }

  // MARK: - Checks

  /// Once the engines settle: both copies list what the history expects (and the albums
  /// given, when given), verify intact and export every photo bit for bit
  /// (`SyncMergeTests.assertMerged`), and no conflict file exists on either side.
  func assertInSync(
    _ a: Machine, _ b: Machine, _ history: History, albums: [String: [String]]? = nil,
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    try pair.settle(file: file, line: line)
    try SyncMergeTests.assertMerged(a, b, history, exportingIn: folder, file: file, line: line)
    let onA = try SyncMergeTests.albums(a)
    XCTAssertEqual(try SyncMergeTests.albums(b), onA, file: file, line: line)
    if let albums { XCTAssertEqual(onA, albums, file: file, line: line) }
    // The checks wrote nothing that changes the space; settled again, the next step starts
    // from copies that agree.
    try pair.settle(file: file, line: line)
    XCTAssertEqual(try conflictFiles(), [], file: file, line: line)
  }

  /// Every `.sync-conflict-` file in either instance's folder.
  func conflictFiles() throws -> [String] {
    pair.instances.flatMap { instance in
      (FileManager.default.enumerator(atPath: instance.folder)?.allObjects as? [String] ?? [])
        .filter { $0.contains(".sync-conflict-") }.map { instance.name + ": " + $0 }
    }
  }
}
