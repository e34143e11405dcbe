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
