import Foundation
import XCTest

/// SIGINT, SIGTERM and SIGHUP stop a command cleanly: what was reported stays, nothing
/// half-done is left, a summary says how far it got, and the status is 130. Signals are
/// sent at events (a line of output, a file appearing), never after a sleep.
final class InterruptionTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  /// A folder of `count` distinct photos: photo.jpg followed by 64 KiB and a number
  /// (decoders stop at the end marker), so each takes a moment to hash and encrypt.
  func makePhotos(_ count: Int = 150) throws -> String {
    let photos = folder + "/photos"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    let base = try fileBytes(fixturesPath + "/photo.jpg") + [UInt8](repeating: 0x5A, count: 65536)
    for number in 0..<count {
      let suffix = withUnsafeBytes(of: UInt32(number).bigEndian) { Array($0) }
      try writeBytes(base + suffix, to: photos + String(format: "/p%03d.jpg", number))
    }
    return photos
  }

  /// Every `.tmp-` file below `path`.
  func temporaryFiles(in path: String) -> [String] {
    let all = FileManager.default.enumerator(atPath: path)?.allObjects as? [String] ?? []
    return all.filter { ($0 as NSString).lastPathComponent.hasPrefix(".tmp-") }
  }

  func listedNames() throws -> [String] {
    try vault.listJSON().map { $0["name"] as? String ?? "" }
  }

  /// The names of the files a run reported with `verb` (`added`, `exported`).
  func reported(_ run: VaultRun, _ verb: String) -> [String] {
    run.stdout.split(separator: "\n").filter { $0.hasPrefix(verb + " /") }.map {
      (String($0.dropFirst(verb.count + 1)) as NSString).lastPathComponent
    }
  }

  func assertVerifies(_ message: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let verify = try vault.run(["verify", "--quiet"])
    XCTAssertEqual(verify.status, 0, message + ": " + verify.stdout, file: file, line: line)
  }

  /// Starts `vault add` of the photos and sends `signals` once the first photo is reported.
  func interruptedAdd(_ photos: String, signals: [Int32]) throws -> VaultRun {
    let running = try vault.start(["add", photos])
    XCTAssertNotNil(running.waitForLine { $0.hasPrefix("added /") }, "no photo was reported")
    for signal in signals { running.send(signal) }
    return try running.finish()
  }

  /// The folder of the one space of the vault.
  /// Runs vault and sends it `signal` as soon as a file is made in `folder` (not at all
  /// if it ends first: its output closes).
  func signalAtFirstFile(
    in folder: String, _ signal: Int32, _ arguments: [String], file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> VaultRun {
    let watcher = inotify_init1(Int32(IN_CLOEXEC))
    XCTAssertGreaterThanOrEqual(watcher, 0)
    defer { close(watcher) }
    XCTAssertGreaterThanOrEqual(inotify_add_watch(watcher, folder, UInt32(IN_CREATE)), 0)
    let running = try vault.start(arguments)
    var waiting = [
      pollfd(fd: watcher, events: Int16(POLLIN), revents: 0),
      pollfd(fd: running.outputDescriptor, events: 0, revents: 0),
    ]
    while true {
      if poll(&waiting, 2, -1) < 0 && errno == EINTR { continue }
      if waiting[0].revents & Int16(POLLIN) != 0 {
        running.send(signal)
        break
      }
      if waiting[1].revents & Int16(POLLHUP) != 0 {
        XCTFail("vault ended before making a file in \(folder)", file: file, line: line)
        break
      }
    }
    return try running.finish()
  }

  func testASignalDuringSelectOrDeleteLetsItsWriteFinish() throws {
    XCTAssertEqual(try vault.run(["add", try makePhotos(6)]).status, 0)
    // The add made the journal; the signal goes when the change is being appended to it.
    let journal = try vault.spaceFolder() + "/Journal"
    let select = try signalAtFirstFile(in: journal, SIGINT, ["select", "2-4"])
    XCTAssertEqual(select.status, 0, select.stderr)
    XCTAssertTrue(select.stdout.contains("3 of 6 photos selected"), select.stdout)
    let delete = try signalAtFirstFile(in: journal, SIGTERM, ["delete", "--selected", "--yes"])
    XCTAssertEqual(delete.status, 0, delete.stderr)
    XCTAssertEqual(try listedNames(), ["p000.jpg", "p004.jpg", "p005.jpg"])
    XCTAssertEqual(temporaryFiles(in: vault.vault), [])
    try assertVerifies("after the signalled delete")
  }

  func testCtrlCDuringAddKeepsWhatWasReportedAndExits130() throws {
    let photos = try makePhotos()
    let run = try interruptedAdd(photos, signals: [SIGINT])
    XCTAssertEqual(run.status, 130, run.stderr)
    let added = reported(run, "added")
    XCTAssertLessThan(added.count, 150)
    XCTAssertTrue(
      run.stderr.contains("interrupted: \(added.count) of 150 added; run the same command again to continue"),
      run.stderr)
    XCTAssertEqual(Set(try listedNames()), Set(added), "exactly the reported photos are listed")
    XCTAssertEqual(temporaryFiles(in: vault.vault), [])
    try assertVerifies("right after the interrupted add")
    // Running the same command again finishes the job.
    let again = try vault.run(["add", photos])
    XCTAssertEqual(again.status, 0, again.stderr)
    XCTAssertTrue(
      again.stdout.contains("added \(photoCount(150 - added.count)), skipped \(added.count)"), again.stdout)
    XCTAssertEqual(try listedNames().count, 150)
  }

  func testSIGTERMAndSIGHUPStopAddLikeCtrlC() throws {
    let photos = try makePhotos()
    for signal in [SIGTERM, SIGHUP] {
      let run = try interruptedAdd(photos, signals: [signal])
      XCTAssertEqual(run.status, 130, "signal \(signal): \(run.stderr)")
      XCTAssertTrue(run.stderr.contains("interrupted: "), run.stderr)
      XCTAssertEqual(temporaryFiles(in: vault.vault), [])
      try assertVerifies("after signal \(signal)")
    }
  }

  func testASecondCtrlCExitsAtOnceAndTheNextWriteCleansUp() throws {
    let run = try interruptedAdd(try makePhotos(), signals: [SIGINT, SIGINT])
    XCTAssertEqual(run.status, 130, run.stderr)
    try assertTheNextWriteCleansUp(after: run)
  }

  /// `vault add … | head`: once the reader has gone, the import goes on to its end rather
  /// than being killed by SIGPIPE halfway through a batch (which left moved originals that
  /// no index listed, and a space that did not verify until the next write).
  func testAReaderThatGoesAwayDoesNotKillAdd() throws {
    let running = try vault.start(["add", try makePhotos()])
    XCTAssertNotNil(running.waitForLine { $0.hasPrefix("added /") }, "no photo was reported")
    try running.closeOutputAndWait()
    XCTAssertEqual(
      running.process.terminationReason, .exit, "killed by signal \(running.process.terminationStatus)")
    XCTAssertEqual(try listedNames().count, 150)
    XCTAssertEqual(temporaryFiles(in: folder + "/vault"), [])
    try assertVerifies("after add lost its reader")
  }

  /// SIGQUIT (Ctrl-\) ends vault as the system would, without the Swift runtime's crash
  /// report, which printed registers with the memory they point at (key or plaintext bytes)
  /// after a pause of seconds that kept the space locked.
  func testSIGQUITEndsAddWithoutACrashReport() throws {
    let running = try vault.start(["add", try makePhotos()])
    XCTAssertNotNil(running.waitForLine { $0.hasPrefix("added /") }, "no photo was reported")
    running.send(SIGQUIT)
    let run = try running.finish()
    XCTAssertEqual(running.process.terminationReason, .uncaughtSignal)
    XCTAssertEqual(run.status, SIGQUIT)
    XCTAssertFalse(run.stderr.contains("Registers"), run.stderr)
    XCTAssertFalse(run.stderr.contains("Backtrace"), run.stderr)
    try assertTheNextWriteCleansUp(after: run)
  }

  func testAKilledAddIsCleanedUpByTheNextWrite() throws {
    let run = try interruptedAdd(try makePhotos(), signals: [SIGKILL])
    XCTAssertEqual(run.status, SIGKILL)
    try assertTheNextWriteCleansUp(after: run)
  }

  /// Any write command (here `select --none`) leaves no temporary file, a space that
  /// verifies, and every photo `run` reported added.
  private func assertTheNextWriteCleansUp(after run: VaultRun, line: UInt = #line) throws {
    let select = try vault.run(["select", "--none"])
    XCTAssertEqual(select.status, 0, select.stderr, line: line)
    XCTAssertEqual(temporaryFiles(in: vault.vault), [], line: line)
    try assertVerifies("after the next write")
    XCTAssertTrue(Set(reported(run, "added")).isSubset(of: Set(try listedNames())), line: line)
  }

  func testCtrlCDuringExportLeavesOnlyCompleteFiles() throws {
    let photos = try makePhotos()
    XCTAssertEqual(try vault.run(["add", photos, "--quiet"]).status, 0)
    let running = try vault.start(["export", "--all", "--to", "out"])
    XCTAssertNotNil(running.waitForLine { $0.hasPrefix("exported /") || $0.hasPrefix("exported out/") })
    running.send(SIGINT)
    let run = try running.finish()
    XCTAssertEqual(run.status, 130, run.stderr)
    let exported = run.stdout.split(separator: "\n").filter { $0.hasPrefix("exported out/") }.map {
      String($0.dropFirst("exported out/".count))
    }
    XCTAssertLessThan(exported.count, 150)
    XCTAssertTrue(
      run.stderr.contains(
        "interrupted: \(exported.count) of 150 exported to out; to finish, export only the other \(150 - exported.count)"
      ),
      run.stderr)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder + "/out")
    XCTAssertEqual(Set(files), Set(exported), "no partial or hidden files")
    for name in files {
      XCTAssertEqual(try fileBytes(folder + "/out/" + name), try fileBytes(photos + "/" + name), name)
    }
    XCTAssertEqual(temporaryFiles(in: vault.vault), [])
  }

  func testCtrlCDuringRepairStopsBetweenThumbnails() throws {
    let photos = try makePhotos()
    XCTAssertEqual(try vault.run(["add", photos, "--quiet"]).status, 0)
    let thumbs = try vault.spaceFolder() + "/Thumb"
    for name in try FileManager.default.contentsOfDirectory(atPath: thumbs) {
      try FileManager.default.removeItem(atPath: thumbs + "/" + name)
    }
    // The signal goes when the first new thumbnail file appears.
    let run = try signalAtFirstFile(in: thumbs, SIGINT, ["verify", "--repair", "--quiet"])
    XCTAssertEqual(run.status, 130, run.stdout + run.stderr)
    XCTAssertTrue(run.stderr.contains("of 150 thumbnails remade; run the same command again"), run.stderr)
    XCTAssertFalse(run.stderr.contains("interrupted: 150 of"), run.stderr)
    XCTAssertEqual(temporaryFiles(in: vault.vault), [])
    let again = try vault.run(["verify", "--repair", "--quiet"])
    XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
    try assertVerifies("after the repair ran again")
  }
}
