import Foundation
import Synchronization
import VaultTestSupport
import XCTest

/// `vault mount` through the built binary and a real FUSE mount: every file reads back as
/// its original (whole, and at random offsets), the folders hold what they say, changes by
/// other commands show, every way of ending it leaves no mount, a mount point that is not
/// an empty folder of the user's is refused, and nothing decrypted is written anywhere.
final class MountTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var camera = ""
  var mountPoint = ""

  override func setUpWithError() throws {
    try Self.requireFuse()
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    camera = folder + "/camera"
    mountPoint = folder + "/mnt"
    for path in [camera, camera + "/other", mountPoint] {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    // Whatever a test leaves mounted is taken down, so that the folder can go.
    addTeardownBlock { [mountPoint] in
      if Self.isMounted(mountPoint) {
        _ = try? Self.runTool("/usr/bin/fusermount3", ["-u", "-z", mountPoint])
      }
    }
  }

  /// Two photos of one name (in two folders), a Live Photo, and a video of several 64 KiB
  /// chunks that carries `marker` in its metadata; returns the video's path.
  private func makeCameraRoll(marker: String = "") throws -> String {
    try FileManager.default.copyItem(atPath: fixturesPath + "/orientation-1.jpg", toPath: camera + "/IMG.jpg")
    try FileManager.default.copyItem(
      atPath: fixturesPath + "/orientation-3.jpg", toPath: camera + "/other/IMG.jpg")
    try FileManager.default.copyItem(atPath: fixturesPath + "/gray.png", toPath: camera + "/gray.png")
    try TestLivePhotos.still(camera + "/LIVE.JPG", color: "red", identifier: "AAAA-1111")
    try TestLivePhotos.motion(camera + "/LIVE.MOV", identifier: "AAAA-1111")
    let video = camera + "/clip.mp4"
    try TestVideos.run([
      "-f", "lavfi", "-i", "testsrc2=size=640x480:rate=25:duration=3", "-c:v", "libx264", "-pix_fmt",
      "yuv420p", "-qp", "0",
      "-metadata", "comment=\(marker)", video,
    ])
    XCTAssertGreaterThan(try fileBytes(video).count, 4 * 65536)
    let added = try vault.run(["add", camera])
    XCTAssertEqual(added.status, 0, added.stderr)
    return video
  }

  /// Starts `vault mount` in the foreground and waits for its line saying where it is.
  private func startMount() throws -> RunningVault {
    let running = try vault.start(["mount", mountPoint])
    let line = running.waitForLine { $0.contains("mounted") }
    if line == nil { XCTFail("vault mount ended: \(try running.finish().stderr)") }
    XCTAssertTrue(Self.isMounted(mountPoint))
    return running
  }

  /// Fails (under CI) or skips a test where FUSE cannot mount.
  static func requireFuse() throws {
    try require(
      FileManager.default.fileExists(atPath: "/dev/fuse"), "/dev/fuse is missing (FUSE is not available)")
    try requireTool("/usr/bin/fusermount3")
  }

  /// A vault of its own for `test` and an empty folder `mnt` beside it, unmounted (lazily)
  /// when the test ends if a mount is still there.
  static func vaultAndMountPoint(for test: XCTestCase) throws -> (VaultRunner, String) {
    let folder = try makeTemporaryFolder(test)
    let vault = try VaultRunner.initialized(in: folder)
    let mountPoint = folder + "/mnt"
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    test.addTeardownBlock {
      if isMounted(mountPoint) { _ = try? runTool("/usr/bin/fusermount3", ["-uz", mountPoint]) }
    }
    return (vault, mountPoint)
  }

  static func isMounted(_ path: String) -> Bool {
    let resolved = (path as NSString).resolvingSymlinksInPath
    let table = (try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""
    return table.split(separator: "\n").contains { line in
      let fields = line.split(separator: " ")
      return fields.count > 4 && (fields[4] == resolved || fields[4] == path)
    }
  }

  @discardableResult
  static func runTool(_ program: String, _ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// Waits (up to `seconds`) until `condition` holds; false if it never did.
  private func eventually(within seconds: Double = 20, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition() { return true }
      usleep(20_000)
    }
    return condition()
  }

  private func names(_ relative: String) -> Set<String> {
    Set((try? FileManager.default.contentsOfDirectory(atPath: mountPoint + "/" + relative)) ?? [])
  }

  func testEveryFileReadsBackAsItsOriginalInEveryFolder() throws {
    let marker = "vault-mount-marker-" + UUID().uuidString
    let stamp = folder + "/started"
    XCTAssertTrue(FileManager.default.createFile(atPath: stamp, contents: nil))
    let video = try makeCameraRoll(marker: marker)
    XCTAssertEqual(try vault.run(["album", "new", "Trip"]).status, 0)
    let photos = try vault.listJSON()
    let number = { (name: String) in String(1 + photos.firstIndex { $0["name"] as? String == name }!) }
    XCTAssertEqual(try vault.run(["album", "add", "Trip", number("LIVE.JPG"), number("clip.mp4")]).status, 0)
    XCTAssertEqual(try vault.run(["select", number("gray.png")]).status, 0)
    let running = try startMount()

    let originals = [
      "IMG.jpg": camera + "/IMG.jpg", "IMG (1).jpg": camera + "/other/IMG.jpg",
      "gray.png": camera + "/gray.png",
      "LIVE.JPG": camera + "/LIVE.JPG", "LIVE.MOV": camera + "/LIVE.MOV", "clip.mp4": video,
    ]
    // `vault add` walks the folder in its own order: which IMG.jpg is "(1)" is the list's.
    let firstIMG = try XCTUnwrap(photos.first { $0["name"] as? String == "IMG.jpg" })["bytes"] as? Int
    let imgSize = try fileBytes(camera + "/IMG.jpg").count
    let expected =
      firstIMG == imgSize
      ? originals
      : originals.merging(
        ["IMG.jpg": camera + "/other/IMG.jpg", "IMG (1).jpg": camera + "/IMG.jpg"]) { $1 }
    XCTAssertEqual(names("Photos"), Set(expected.keys))
    for (name, original) in expected {
      let path = mountPoint + "/Photos/" + name
      XCTAssertEqual(try fileBytes(path), try fileBytes(original), name)
      let shown = try FileManager.default.attributesOfItem(atPath: path)
      let source = try FileManager.default.attributesOfItem(atPath: original)
      XCTAssertEqual((shown[.posixPermissions] as? Int), 0o400, name)
      XCTAssertEqual((shown[.size] as? Int), try fileBytes(original).count, name)
      XCTAssertEqual(
        (shown[.modificationDate] as? Date)!.timeIntervalSince1970,
        (source[.modificationDate] as? Date)!.timeIntervalSince1970, accuracy: 0.001, name)
    }
    XCTAssertEqual(names("Albums"), ["Trip"])
    XCTAssertEqual(names("Albums/Trip"), ["LIVE.JPG", "LIVE.MOV", "clip.mp4"])
    XCTAssertEqual(names("Selected"), ["gray.png"])
    XCTAssertEqual(try fileBytes(mountPoint + "/Albums/Trip/clip.mp4"), try fileBytes(video))
    try checkDates(expected: Set(expected.keys))
    try checkRandomReads(of: mountPoint + "/Photos/clip.mp4", against: video)
    XCTAssertEqual(
      (try? FileManager.default.attributesOfItem(atPath: mountPoint)[.posixPermissions] as? Int), 0o500)
    XCTAssertFalse(
      FileManager.default.createFile(atPath: mountPoint + "/Photos/new.jpg", contents: Data([1])))

    running.send(SIGINT)
    let ended = try running.finish()
    XCTAssertEqual(ended.status, 0, ended.stderr)
    XCTAssertFalse(Self.isMounted(mountPoint), "Ctrl-C left the mount behind")
    try checkNothingPlain(marker: marker, since: stamp)
  }

  /// A folder of more names than one listing call holds is handed out in several calls,
  /// each going on where the last one stopped: every name once, each with its size.
  func testABigFolderListsEveryNameOnceWithItsSize() throws {
    let original = try fileBytes(fixturesPath + "/orientation-1.jpg")
    var sizes: [String: Int] = [:]
    for number in 0..<150 {
      // Distinct photos: one JPEG with different bytes after its end.
      let name = "IMG_\(number).jpg"
      let bytes = original + Array("extra \(number)".utf8)
      try Data(bytes).write(to: URL(fileURLWithPath: camera + "/" + name))
      sizes[name] = bytes.count
    }
    let added = try vault.run(["add", camera])
    XCTAssertEqual(added.status, 0, added.stderr)
    let running = try startMount()
    let listed = try FileManager.default.contentsOfDirectory(atPath: mountPoint + "/Photos")
    XCTAssertEqual(listed.count, sizes.count)
    XCTAssertEqual(Set(listed), Set(sizes.keys))
    for (name, size) in sizes {
      let shown = try FileManager.default.attributesOfItem(atPath: mountPoint + "/Photos/" + name)
      XCTAssertEqual(shown[.size] as? Int, size, name)
    }
    running.send(SIGTERM)
    XCTAssertEqual(try running.finish().status, 0)
  }

  /// What the mount decrypts is bounded across the mount, not per open file: 300 opens of
  /// a photo at once (each with its reader) lock no more than a few MiB (VmLck: the chunks
  /// are in locked memory; 21 MiB before the readers were pooled).
  func testManyOpenFilesKeepTheLockedMemoryBounded() throws {
    try FileManager.default.copyItem(atPath: fixturesPath + "/orientation-1.jpg", toPath: camera + "/IMG.jpg")
    XCTAssertEqual(try vault.run(["add", camera]).status, 0)
    let started = try vault.run(["mount", mountPoint, "--background"])
    XCTAssertEqual(started.status, 0, started.stderr)
    let pidText = try XCTUnwrap(started.stdout.range(of: #"process (\d+)"#, options: .regularExpression))
    let pid = started.stdout[pidText].dropFirst("process ".count)
    var descriptors: [Int32] = []
    for _ in 0..<300 {
      let descriptor = open(mountPoint + "/Photos/IMG.jpg", O_RDONLY)
      XCTAssertGreaterThanOrEqual(descriptor, 0)
      descriptors.append(descriptor)
    }
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    for descriptor in descriptors { close(descriptor) }
    let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmLck:") })
    let lockedKiB = try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    XCTAssertLessThan(lockedKiB, 6 * 1024, "locked memory grew with the open files")
    XCTAssertEqual(try vault.run(["unmount", mountPoint]).status, 0)
  }

  /// Every photo is in exactly one Dates/<year>/<month>/ folder (UTC in these tests; these
  /// photos' files carry no date taken, so their import month).
  private func checkDates(expected: Set<String>) throws {
    var seen: [String] = []
    for year in names("Dates") {
      XCTAssertEqual(year.count, 4, year)
      for month in names("Dates/" + year) {
        XCTAssertTrue((1...12).contains(Int(month) ?? 0) && month.count == 2, month)
        seen += names("Dates/\(year)/\(month)")
      }
    }
    XCTAssertEqual(seen.sorted(), expected.sorted())
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let now = calendar.dateComponents([.year, .month], from: Date())
    let thisMonth = String(format: "Dates/%04d/%02d", now.year!, now.month!)
    XCTAssertTrue(names(thisMonth).contains("gray.png"), "\(thisMonth): \(names(thisMonth))")
  }

  /// `dd`-style reads at random offsets and lengths, across chunk boundaries, in random
  /// order, by four programs' worth of open files at once (one file handle each, and
  /// several reads of one handle in flight).
  private func checkRandomReads(of path: String, against original: String) throws {
    let bytes = try fileBytes(original)
    let failures = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
      guard let handle = FileHandle(forReadingAtPath: path) else { return }
      defer { try? handle.close() }
      var generator = SystemRandomNumberGenerator()
      for _ in 0..<100 {
        let offset = Int.random(in: 0..<bytes.count, using: &generator)
        let length = Int.random(in: 1...300_000, using: &generator)
        let read = (try? handle.seek(toOffset: UInt64(offset))).flatMap {
          try? handle.read(upToCount: length)
        }
        if [UInt8](read ?? Data()) != Array(bytes[offset..<min(bytes.count, offset + length)]) {
          failures.withLock { $0.append("\(length) bytes at \(offset)") }
        }
      }
    }
    XCTAssertEqual(failures.withLock { $0 }, [])
    let handle = try XCTUnwrap(FileHandle(forReadingAtPath: path))
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(bytes.count))
    XCTAssertEqual(try handle.read(upToCount: 10)?.count ?? 0, 0)
  }

  /// The marker that is in an original's bytes is in no file written under the vault or
  /// /tmp since the test started (but the original itself). Files only, on /tmp's own file
  /// system: other mounts under /tmp (another test's) are not searched.
  private func checkNothingPlain(marker: String, since stamp: String) throws {
    try requireTool("/usr/bin/find")
    let script =
      "find \"$1\" /tmp -xdev -type f -newer \"$2\" -not -path \"$3/*\" -print0 2>/dev/null"
      + " | xargs -0 -r grep -laF -e \"$4\" 2>/dev/null; true"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script, "sh", vault.vault, stamp, camera, marker]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let found = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(found, "", "plaintext found in: \(found)")
  }

  func testChangesByOtherCommandsShowAndSIGTERMUnmounts() throws {
    _ = try makeCameraRoll()
    let running = try startMount()
    XCTAssertFalse(names("Photos").contains("teal.png"))
    try FileManager.default.createDirectory(atPath: folder + "/later", withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      atPath: fixturesPath + "/flat-teal.png", toPath: folder + "/later/teal.png")
    let added = try vault.run(["add", folder + "/later"])
    XCTAssertEqual(added.status, 0, added.stderr)
    XCTAssertTrue(eventually { self.names("Photos").contains("teal.png") }, "the added photo never showed")
    XCTAssertEqual(
      try fileBytes(mountPoint + "/Photos/teal.png"), try fileBytes(fixturesPath + "/flat-teal.png"))
    let listed = try vault.listJSON()
    let gray = String(1 + listed.firstIndex { $0["name"] as? String == "gray.png" }!)
    let deleted = try vault.run(["delete", "--yes", gray])
    XCTAssertEqual(deleted.status, 0, deleted.stderr)
    XCTAssertTrue(eventually { !self.names("Photos").contains("gray.png") }, "the deleted photo stayed")
    XCTAssertTrue(
      eventually { !FileManager.default.fileExists(atPath: self.mountPoint + "/Photos/gray.png") })
    // It is in Recently Deleted/, readable and read-only, until restored.
    XCTAssertTrue(eventually { self.names("Recently Deleted") == ["gray.png"] }, "not in Recently Deleted/")
    XCTAssertEqual(
      try fileBytes(mountPoint + "/Recently Deleted/gray.png"), try fileBytes(fixturesPath + "/gray.png"))
    XCTAssertFalse(
      FileManager.default.createFile(atPath: mountPoint + "/Recently Deleted/new.png", contents: Data([1])))
    XCTAssertNotEqual(unlink(mountPoint + "/Recently Deleted/gray.png"), 0)
    let restored = try vault.run(["trash", "restore", "1"])
    XCTAssertEqual(restored.status, 0, restored.stderr)
    XCTAssertTrue(eventually { self.names("Photos").contains("gray.png") }, "the restored photo never showed")
    XCTAssertTrue(eventually { self.names("Recently Deleted").isEmpty })

    running.send(SIGTERM)
    let ended = try running.finish()
    XCTAssertEqual(ended.status, 0, ended.stderr)
    XCTAssertFalse(Self.isMounted(mountPoint), "SIGTERM left the mount behind")
  }

  func testBackgroundMountEndsWithUnmountLazilyWhenAFileIsOpen() throws {
    _ = try makeCameraRoll()
    let started = try vault.run(["mount", mountPoint, "--background"])
    XCTAssertEqual(started.status, 0, started.stderr)
    XCTAssertTrue(Self.isMounted(mountPoint), "--background returned before the mount was there")
    let pidText = try XCTUnwrap(started.stdout.range(of: #"process (\d+)"#, options: .regularExpression))
    let pid = pid_t(started.stdout[pidText].dropFirst("process ".count))!
    XCTAssertEqual(try fileBytes(mountPoint + "/Photos/gray.png"), try fileBytes(camera + "/gray.png"))

    let held = try XCTUnwrap(FileHandle(forReadingAtPath: mountPoint + "/Photos/gray.png"))
    let unmounted = try vault.run(["unmount", mountPoint])
    XCTAssertEqual(unmounted.status, 0, unmounted.stderr)
    XCTAssertTrue(unmounted.stderr.contains("unmounted lazily"), unmounted.stderr)
    XCTAssertFalse(Self.isMounted(mountPoint))
    try held.close()
    XCTAssertTrue(eventually { kill(pid, 0) != 0 }, "the background mount did not end")

    let again = try vault.run(["mount", mountPoint, "--background"])
    XCTAssertEqual(again.status, 0, again.stderr)
    let plain = try vault.run(["unmount", mountPoint])
    XCTAssertEqual(plain.status, 0, plain.stderr)
    XCTAssertEqual(plain.stderr, "")
    XCTAssertFalse(Self.isMounted(mountPoint))
    let notMounted = try vault.run(["unmount", mountPoint])
    XCTAssertEqual(notMounted.status, 1)
    XCTAssertEqual(notMounted.stderr, "error: '\(mountPoint)': not a vault mount\n")
  }

  /// A mount whose process was killed answers nothing; `vault unmount` still takes it down.
  func testUnmountTakesDownAMountWhoseProcessWasKilled() throws {
    _ = try makeCameraRoll()
    let started = try vault.run(["mount", mountPoint, "--background"])
    XCTAssertEqual(started.status, 0, started.stderr)
    let pidText = try XCTUnwrap(started.stdout.range(of: #"process (\d+)"#, options: .regularExpression))
    let pid = pid_t(started.stdout[pidText].dropFirst("process ".count))!
    kill(pid, SIGKILL)
    XCTAssertTrue(eventually { kill(pid, 0) != 0 })
    XCTAssertTrue(Self.isMounted(mountPoint))
    // Mounting there again says what to do, in one line.
    let again = try vault.run(["mount", mountPoint])
    XCTAssertEqual(again.status, 1)
    XCTAssertEqual(
      again.stderr,
      "error: '\(mountPoint)': a mount whose process ended is still here: "
        + "run 'vault unmount \(mountPoint)' first\n")
    let unmounted = try vault.run(["unmount", mountPoint])
    XCTAssertEqual(unmounted.status, 0, unmounted.stderr)
    XCTAssertFalse(Self.isMounted(mountPoint))
  }

  func testWithTheSessionKeyOfUnlockNoPasswordIsAsked() throws {
    try requireTool("/usr/bin/keyctl")
    _ = try makeCameraRoll()
    let passwordFile = folder + "/password"
    try "correct horse\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
    // In a session keyring of its own: unlock, then mount with no password given at all.
    let script = "\"$0\" unlock --password-file '\(passwordFile)' >/dev/null && exec \"$0\" \"$@\""
    let started = try vault.run(
      ["mount", mountPoint, "--background"], password: nil,
      through: ["/usr/bin/keyctl", "session", "-", "/bin/sh", "-c", script])
    XCTAssertEqual(started.status, 0, started.stderr)
    XCTAssertTrue(Self.isMounted(mountPoint))
    XCTAssertEqual(try vault.run(["unmount", mountPoint]).status, 0)
  }

  func testRefusesAMountPointThatIsNotAnEmptyFolderOfTheUsers() throws {
    try FileManager.default.createDirectory(atPath: folder + "/full", withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: folder + "/full/keep.txt", contents: Data("mine".utf8))
    _ = FileManager.default.createFile(atPath: folder + "/file", contents: Data())
    var cases = [
      (folder + "/full", "the folder is not empty"), (folder + "/file", "not a folder"),
      (folder + "/missing", "no such folder"),
    ]
    if getuid() == 0 {
      try FileManager.default.createDirectory(atPath: folder + "/theirs", withIntermediateDirectories: true)
      XCTAssertEqual(chown(folder + "/theirs", 65534, 65534), 0)
      cases.append((folder + "/theirs", "the folder belongs to another user"))
    }
    for (path, reason) in cases {
      let run = try vault.run(["mount", path])
      XCTAssertEqual(run.status, 1, path)
      XCTAssertTrue(run.stderr.hasPrefix("error: '\(path)': \(reason)"), run.stderr)
      XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
      XCTAssertFalse(Self.isMounted(path))
    }
    XCTAssertEqual(try String(contentsOfFile: folder + "/full/keep.txt", encoding: .utf8), "mine")
  }

  /// In a mount namespace of its own where /dev/fuse is /dev/null: FUSE is not there.
  func testWithoutFuseSaysSoInOneLine() throws {
    try requireTool("/usr/bin/unshare")
    try require(getuid() == 0, "a mount namespace of its own needs root")
    let script = "mount --bind /dev/null /dev/fuse && exec \"$0\" \"$@\""
    let run = try vault.run(
      ["mount", mountPoint], through: ["/usr/bin/unshare", "-m", "/bin/sh", "-c", script])
    XCTAssertEqual(run.status, 1)
    XCTAssertEqual(run.stderr, "error: '/dev/fuse': not the FUSE device, so FUSE is not available here\n")
    XCTAssertFalse(Self.isMounted(mountPoint))
  }
}
