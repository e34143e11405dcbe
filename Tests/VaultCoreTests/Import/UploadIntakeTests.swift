import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore

/// Photos that arrive as bytes (`vault serve`) are stored as `add` stores files, within a
/// memory budget, without plaintext on disk, and without holding the space's lock.
final class UploadIntakeTests: XCTestCase {
  var folder = ""
  var vault: Vault!
  var space: Space!

  override func setUpWithError() throws {
    (folder, vault, space) = try makeOpenedSpace(self, password: "first", access: .read)
  }

  func fixture(_ name: String) throws -> [UInt8] {
    try readWholeFile(fixturesPath + "/" + name)
  }

  /// Every file under `path`, by relative path.
  func files(under path: String) -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: path)
    return (enumerator?.allObjects as? [String] ?? []).filter { !isDirectory(path + "/" + $0) }.sorted()
  }

  /// Sends `bytes` in pieces of `piece` bytes, as a server receives them.
  func send(_ bytes: [UInt8], to upload: PhotoUpload, piece: Int = 7001) throws {
    var offset = 0
    while offset < bytes.count {
      let end = min(bytes.count, offset + piece)
      try bytes[offset..<end].withUnsafeBytes { try upload.append($0) }
      offset = end
    }
  }

  /// `finish` blocks: it runs on a thread of its own, as a server runs it on a pool.
  func upload(
    _ bytes: [UInt8], named name: String, into intake: UploadIntake, modifiedAt: Timestamp? = nil
  ) async throws -> UploadOutcome {
    let upload = try await intake.begin(name: name, length: bytes.count, modifiedAt: modifiedAt)
    try send(bytes, to: upload)
    return try await finishOffThread(upload)
  }

  func addedRecord(_ outcome: UploadOutcome, file: StaticString = #filePath, line: UInt = #line)
    -> PhotoRecord?
  {
    guard case .added(let record) = outcome else {
      XCTFail("expected the photo to be added, got \(outcome)", file: file, line: line)
      return nil
    }
    return record
  }

  func assertRefused(
    _ body: () async throws -> Any, _ expected: VaultError, file: StaticString = #filePath, line: UInt = #line
  ) async {
    do {
      _ = try await body()
      XCTFail("expected \(expected)", file: file, line: line)
    } catch {
      XCTAssertEqual(error as? VaultError, expected, file: file, line: line)
    }
  }

  // MARK: Stored as add stores it

  func testAnUploadIsStoredAndListedAsAddStoresTheSameFile() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    try vault.createSpace(password: password("second"))
    let added = try vault.unlock(password: password("second"), access: .write)
    let names = ["orientation-6.jpg", "rgba.png", "quad-progressive.jpg", "quad.avif"]
    try PhotoImporter().importFiles(names.map { fixturesPath + "/" + $0 }, into: added) { _, _ in }
    let modified = Timestamp(seconds: 1_600_000_000, nanoseconds: 5)

    for (name, expected) in zip(names, added.entries.map(\.record)) {
      let bytes = try fixture(name)
      let outcome = try await upload(bytes, named: "DCIM/" + name, into: intake, modifiedAt: modified)
      let record = try XCTUnwrap(addedRecord(outcome))
      XCTAssertEqual(record.name, name, "the folder the browser sent is not kept")
      XCTAssertEqual(record.bytes, expected.bytes)
      XCTAssertEqual(record.format, expected.format)
      XCTAssertEqual(record.width, expected.width)
      XCTAssertEqual(record.height, expected.height)
      XCTAssertEqual(record.orientation, expected.orientation)
      XCTAssertEqual(record.modifiedAt, modified)

      // Read back by a new reader: listed, the original bit for bit, a thumbnail that
      // decodes to what add made.
      let reader = try vault.unlock(password: password("first"), access: .read)
      XCTAssertEqual(reader.entries.last?.record, record)
      XCTAssertEqual(try reader.original(of: record).withUnsafeBytes { Array($0) }, bytes)
      let thumbnail = try reader.thumbnail(of: record)
      XCTAssertEqual(thumbnail, try added.thumbnail(of: expected))
      let decoded = try JPEGDecoder(bytes: thumbnail, name: "thumbnail")
      XCTAssertEqual(
        [decoded.width, decoded.height].max(), min(512, max(record.width, record.height)),
        "\(name): the thumbnail's long side")
    }
    let reader = try vault.unlock(password: password("first"), access: .read)
    XCTAssertEqual(reader.entries.map(\.record.name), names)
    XCTAssertEqual(SpaceVerifier(space: reader).verify().filter(\.isProblem), [])
  }

  func testAnUploadKeepsTheDateTakenAndCameraItsFileGives() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    for name in ["taken-offset.jpg", "taken.heic", "photo.jpg"] {
      let expected = PhotoDetailsTests.expected.first { $0.name == name }!.details
      let outcome = try await upload(try fixture(name), named: name, into: intake)
      let record = try XCTUnwrap(addedRecord(outcome))
      XCTAssertEqual(PhotoDetails(of: record), expected, name)
    }
    let reopened = try vault.unlock(password: password("first"), access: .read)
    XCTAssertEqual(
      reopened.entries.map { PhotoDetails(of: $0.record) },
      ["taken-offset.jpg", "taken.heic", "photo.jpg"].map { name in
        PhotoDetailsTests.expected.first { $0.name == name }!.details
      })
    XCTAssertTrue(reopened.entries.allSatisfy { reopened.hasDetails($0.record.id) })
  }

  func testWithoutAModificationTimeTheUploadIsDatedNow() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    let before = Timestamp.now()
    let outcome = try await upload(try fixture("gray.png"), named: "a.png", into: intake)
    let record = try XCTUnwrap(addedRecord(outcome))
    let after = Timestamp.now()
    XCTAssert(before.nanosecondsSince1970 <= record.modifiedAt.nanosecondsSince1970)
    XCTAssert(record.modifiedAt.nanosecondsSince1970 <= after.nanosecondsSince1970)
    XCTAssert(before.nanosecondsSince1970 <= record.importedAt.nanosecondsSince1970)
  }

  // MARK: Videos

  /// A video larger than the whole memory budget is encrypted as it arrives and read back
  /// by range: stored as a video turned by its display matrix, with its duration, codec
  /// and date, its original bit for bit, nothing left beside it.
  func testAVideoLargerThanTheMemoryBudgetStreamsIntoItsBlob() async throws {
    let path = folder + "/IMG_0001.MOV"
    try TestVideos.markedMOV(path, appleDate: "2023-02-03T04:05:06+0100")
    // A `free` box after the movie makes it span several 64 KiB chunks.
    var bytes = try readWholeFile(path)
    let padding = 300_000
    bytes += [0, 0, 0, 0].enumerated().map { UInt8(truncatingIfNeeded: padding >> (24 - 8 * $0.offset)) }
    bytes += Array("free".utf8) + [UInt8](repeating: 0, count: padding - 8)
    try FileManager.default.removeItem(atPath: path)
    let before = Set(files(under: folder))
    let intake = UploadIntake(space: space, maxUploadBytes: 1000, memoryBudget: 4000)
    let upload = try await intake.begin(name: "IMG_0001.MOV", length: bytes.count, modifiedAt: nil)
    try send(bytes, to: upload, piece: 65_537)
    let outcome = try await finishOffThread(upload)
    let record = try XCTUnwrap(addedRecord(outcome))
    XCTAssertEqual(record.format, .mov)
    XCTAssertEqual([record.width, record.height], [240, 320])
    XCTAssertEqual(record.durationMicroseconds, 2_000_000)
    XCTAssertEqual(record.codec, "hevc")
    XCTAssertNotNil(record.taken)
    let reader = try vault.unlock(password: password("first"), access: .read)
    XCTAssertEqual(reader.entries.map(\.record), [record])
    XCTAssertEqual(try reader.original(of: record).withUnsafeBytes { Array($0) }, bytes)
    XCTAssertEqual(SpaceVerifier(space: reader).verify().filter(\.isProblem), [])
    let added = Set(files(under: folder)).subtracting(before)
    XCTAssertEqual(added.filter { $0.contains("/Photo/") || $0.contains("/Thumb/") }.count, 2, "\(added)")
    XCTAssertEqual(added.filter { $0.contains(".tmp-") }, [])
  }

  /// A photo under a video's name took only a video's share of the memory: refused once
  /// its format is known, and nothing is left.
  func testAPhotoUnderAVideosNameIsRefused() async throws {
    let bytes = try fixture("quad-big-app.jpg")
    let intake = UploadIntake(space: space, maxUploadBytes: 1000, memoryBudget: 4000)
    let before = files(under: folder)
    await assertRefused(
      { try await self.upload(bytes, named: "clip.mp4", into: intake) },
      .uploadRefused(name: "clip.mp4", reason: "it is a JPEG photo, not the video its name says"))
    XCTAssertEqual(files(under: folder), before)
  }

  /// An upload whose decoding passes the header's estimate but not the decoder helper's
  /// memory is refused naming the limit, nothing is left of it, and the next upload is
  /// stored (a fresh helper, or the same one, decodes it).
  func testAnUploadOverTheDecoderHelpersMemoryIsRefusedAndTheNextStored() async throws {
    let intake = UploadIntake(
      space: space, maxUploadBytes: 50 << 20, decoderLimits: DecoderLimits(memoryMiB: 64))
    let before = files(under: folder)
    await assertRefused(
      {
        try await self.upload(try progressiveJPEG(width: 8000, height: 8000), named: "big.jpg", into: intake)
      },
      .uploadRefused(name: "big.jpg", reason: "decoding needs more than 64 MiB"))
    // `serve` says "refused" once (it said "refused big.jpg: refused: decoding …").
    XCTAssertEqual(
      VaultError.uploadRefused(name: "big.jpg", reason: "decoding needs more than 64 MiB").description,
      "upload 'big.jpg' refused: decoding needs more than 64 MiB")
    XCTAssertEqual(files(under: folder), before)
    _ = addedRecord(try await upload(try fixture("photo.jpg"), named: "photo.jpg", into: intake))
  }

  // MARK: Dedupe

  func testTheSameBytesTwiceAreStoredOnce() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    let bytes = try fixture("photo.jpg")
    _ = addedRecord(try await upload(bytes, named: "IMG_1.JPG", into: intake))
    guard case .duplicate = try await upload(bytes, named: "IMG_1 copy.JPG", into: intake) else {
      return XCTFail("the second upload should be a duplicate")
    }
    XCTAssertEqual(try vault.unlock(password: password("first"), access: .read).entries.count, 1)
  }

  func testTwoConcurrentIdenticalUploadsStoreOnePhoto() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    let bytes = try fixture("photo.jpg")
    let first = try await intake.begin(name: "a.jpg", length: bytes.count, modifiedAt: nil)
    let second = try await intake.begin(name: "b.jpg", length: bytes.count, modifiedAt: nil)
    try send(bytes, to: first)
    try send(bytes, to: second)
    async let one = finishOffThread(first)
    async let other = finishOffThread(second)
    let outcomes = try await [one, other]
    let added = outcomes.filter { if case .added = $0 { true } else { false } }
    XCTAssertEqual(added.count, 1, "\(outcomes)")
    XCTAssertEqual(try vault.unlock(password: password("first"), access: .read).entries.count, 1)
  }

  /// The intake's space does not hold its lock: another command opens it to write between
  /// two uploads, and adds a photo, which the intake then knows is there.
  func testAnotherWriterWorksBetweenUploadsAndItsPhotosCountAsDuplicates() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    _ = addedRecord(try await upload(try fixture("gray.png"), named: "gray.png", into: intake))

    let descriptor = open(space.directory, O_RDONLY | O_DIRECTORY)
    defer { close(descriptor) }
    XCTAssertEqual(flock(descriptor, LOCK_EX | LOCK_NB), 0, "nothing holds the space's lock between commits")
    flock(descriptor, LOCK_UN)
    do {
      let reader = try vault.unlock(password: password("first"), access: .read)
      XCTAssertEqual(reader.entries.map(\.record.name), ["gray.png"])
    }
    do {
      let writer = try vault.unlock(password: password("first"), access: .write)
      try PhotoImporter().importFiles([fixturesPath + "/photo.jpg"], into: writer) { _, _ in }
    }

    guard case .duplicate = try await upload(try fixture("photo.jpg"), named: "photo.jpg", into: intake)
    else {
      return XCTFail("the photo another command added is already in the space")
    }
    _ = addedRecord(try await upload(try fixture("palette.png"), named: "palette.png", into: intake))
    let after = try vault.unlock(password: password("first"), access: .read)
    XCTAssertEqual(after.entries.map(\.record.name), ["gray.png", "photo.jpg", "palette.png"])
    XCTAssertEqual(SpaceVerifier(space: after).verify().filter(\.isProblem), [])
  }

  // MARK: Refusals

  func testNamesAreReducedToAPlainFileName() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 1000)
    for (given, kept) in [
      ("IMG_1.JPG", "IMG_1.JPG"), ("../../etc/passwd", "passwd"), ("C:\\DCIM\\x.jpg", "x.jpg"),
      // A slash followed by a combining mark is one Character that is not "/", but its
      // bytes hold one: the name is cut there too, on bytes, as export and the mount judge
      // names (PathComponent).
      ("../\u{301}x.jpg", "\u{301}x.jpg"), ("a\\\u{301}b.jpg", "\u{301}b.jpg"),
      ("Caf\u{E9}.jpg", "Caf\u{E9}.jpg"), ("Cafe\u{301}.jpg", "Cafe\u{301}.jpg"),
    ] {
      let upload = try await intake.begin(name: given, length: 10, modifiedAt: nil)
      XCTAssertEqual(Array(upload.name.utf8), Array(kept.utf8), given.debugDescription)
      upload.cancel()
    }
    let tooLong = String(repeating: "é", count: 128)
    for (given, reason) in [
      ("", "no file name"), ("photos/", "no file name"), ("..", "not a file name"),
      ("a/.", "not a file name"),
      ("a\u{0}b.jpg", "its name holds control characters"), ("a\nb.jpg", "its name holds control characters"),
      ("a/..\u{301}", "not a file name"), ("a/ . ", "not a file name"),
      // A direction override shows `gpj.exe` as `exe.jpg`: export would write `_` for it.
      ("photo\u{202E}gpj.exe", "its name holds control characters"),
      (tooLong, "its name is longer than 255 bytes"),
    ] {
      await assertRefused(
        { try await intake.begin(name: given, length: 10, modifiedAt: nil) },
        .uploadRefused(name: given, reason: reason))
    }
  }

  func testSizesThatCannotBeHeldAreRefusedAtBegin() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 1000, memoryBudget: 4000)
    await assertRefused(
      { try await intake.begin(name: "big.jpg", length: 1001, modifiedAt: nil) },
      .uploadRefused(name: "big.jpg", reason: "larger than the 1000 bytes limit"))
    await assertRefused(
      { try await intake.begin(name: "empty.jpg", length: 0, modifiedAt: nil) },
      .uploadRefused(name: "empty.jpg", reason: "empty file"))
    let roomy = UploadIntake(space: space, maxUploadBytes: 200_000_000, memoryBudget: 4000)
    await assertRefused(
      { try await roomy.begin(name: "big.jpg", length: 4001, modifiedAt: nil) },
      .uploadRefused(name: "big.jpg", reason: "larger than the 4000 bytes an upload may take in memory"))
    var thumbnailer = Thumbnailer()
    thumbnailer.memoryLimit = 64 << 20
    let decodeBound = UploadIntake(space: space, maxUploadBytes: 200_000_000, thumbnailer: thumbnailer)
    await assertRefused(
      { try await decodeBound.begin(name: "big.jpg", length: (64 << 20) + 1, modifiedAt: nil) },
      .uploadRefused(name: "big.jpg", reason: "larger than the 64 MiB an upload may take in memory"))
    XCTAssertEqual(
      VaultError.uploadRefused(name: "big.jpg", reason: "larger than the 200 MB limit").description,
      "upload 'big.jpg' refused: larger than the 200 MB limit")
  }

  func testMoreBytesThanAnnouncedAreRefused() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 1000, memoryBudget: 1000)
    let upload = try await intake.begin(name: "a.jpg", length: 1000, modifiedAt: nil)
    try send([UInt8](repeating: 1, count: 999), to: upload)
    await assertRefused(
      { try [UInt8](repeating: 1, count: 2).withUnsafeBytes { try upload.append($0) } },
      .uploadRefused(name: "a.jpg", reason: "more than the 1000 bytes announced arrived"))
    // It is over, and its memory is free again.
    XCTAssertThrowsError(try upload.finish())
    _ = try await intake.begin(name: "b.jpg", length: 1000, modifiedAt: nil, waitingAtMost: 0)
  }

  func testAnIncompleteUploadIsRefusedAndLeavesNothing() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    let bytes = try fixture("photo.jpg")
    let before = files(under: folder)
    let upload = try await intake.begin(name: "IMG_1.JPG", length: bytes.count, modifiedAt: nil)
    try send(Array(bytes[0..<1000]), to: upload)
    XCTAssertEqual(upload.received, 1000)
    await assertRefused(
      { try await finishOffThread(upload) },
      .uploadRefused(name: "IMG_1.JPG", reason: "incomplete: 1000 of \(bytes.count) bytes arrived"))
    XCTAssertEqual(files(under: folder), before)
    XCTAssertEqual(try vault.unlock(password: password("first"), access: .read).entries.count, 0)
  }

  func testWhatIsNotAPhotoIsRefusedNamingTheUpload() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    let before = files(under: folder)
    for (name, problem) in [
      ("notes.txt", VaultError.unsupportedFormat(path: "notes.txt")),
      ("corrupt.jpg", nil),
      ("bomb.png", nil),
    ] {
      do {
        _ = try await upload(try fixture("bad/" + name), named: name, into: intake)
        XCTFail("\(name) should be refused")
      } catch let error as VaultError {
        guard case .uploadRefused(name, let reason) = error else { return XCTFail("\(name): \(error)") }
        if let problem { XCTAssertEqual(reason, problem.contentProblem) }
        XCTAssert(error.description.hasPrefix("upload '\(name)' refused: "), error.description)
      }
    }
    XCTAssertEqual(files(under: folder), before)
  }

  // MARK: Memory

  func testACancelledUploadLetsTheWaitingOnesProceedInOrder() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 1000, memoryBudget: 1000)
    let first = try await intake.begin(name: "first.jpg", length: 800, modifiedAt: nil)
    let second = BackgroundBegin(intake, name: "second.jpg", length: 500)
    await second.waitUntilQueuedOrDone(waiting: 1)
    XCTAssertFalse(second.isDone, "the budget is full")
    // There is room for the third, but the second came first.
    let third = BackgroundBegin(intake, name: "third.jpg", length: 100)
    await third.waitUntilQueuedOrDone(waiting: 2)
    XCTAssertFalse(third.isDone, "the third waits behind the second")
    first.cancel()
    let secondUpload = try await second.task.value
    let thirdUpload = try await third.task.value
    XCTAssertEqual([secondUpload.name, thirdUpload.name], ["second.jpg", "third.jpg"])
    XCTAssertEqual(intake.uploadsWaiting, 0)
  }

  func testAWaiterTimesOutWhenTheBudgetStaysFull() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 1000, memoryBudget: 1000)
    let first = try await intake.begin(name: "first.jpg", length: 800, modifiedAt: nil)
    await assertRefused(
      { try await intake.begin(name: "second.jpg", length: 500, modifiedAt: nil, waitingAtMost: 0.2) },
      .uploadsBusy(name: "second.jpg", seconds: 0.2))
    XCTAssertEqual(intake.uploadsWaiting, 0)
    XCTAssertEqual(
      VaultError.uploadsBusy(name: "second.jpg", seconds: 60).description,
      "upload 'second.jpg' waited 60 s for memory that other uploads hold; try again")
    // What timed out took nothing.
    _ = try await intake.begin(name: "third.jpg", length: 200, modifiedAt: nil, waitingAtMost: 0)
    withExtendedLifetime(first) {}
  }

  func testAWaitingTaskThatIsCancelledTakesNothing() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 1000, memoryBudget: 1000)
    let first = try await intake.begin(name: "first.jpg", length: 800, modifiedAt: nil)
    let second = BackgroundBegin(intake, name: "second.jpg", length: 500)
    await second.waitUntilQueuedOrDone(waiting: 1)
    second.task.cancel()
    do {
      _ = try await second.task.value
      XCTFail("a cancelled wait should throw")
    } catch {
      XCTAssert(error is CancellationError, "\(error)")
    }
    XCTAssertEqual(intake.uploadsWaiting, 0)
    _ = try await intake.begin(name: "third.jpg", length: 200, modifiedAt: nil, waitingAtMost: 0)
    withExtendedLifetime(first) {}
  }

  // MARK: Secrecy

  func testNothingPlaintextIsWritten() async throws {
    let intake = UploadIntake(space: space, maxUploadBytes: 50 << 20)
    let bytes = try fixture("photo.jpg")
    let marker = Array(bytes[0..<64])
    let upload = try await intake.begin(name: "IMG_1.JPG", length: bytes.count, modifiedAt: nil)
    try send(bytes, to: upload)
    _ = addedRecord(try await finishOffThread(upload))
    let written = files(under: folder)
    XCTAssertFalse(written.isEmpty)
    for name in written {
      let contents = try readWholeFile(folder + "/" + name, limit: 64 << 20)
      XCTAssertNil(contents.firstRange(of: marker), "\(name) holds the photo's plaintext")
    }
  }
}

/// A `begin` running in a task of its own, which says when it has returned.
final class BackgroundBegin: @unchecked Sendable {
  let intake: UploadIntake
  private let lock = NSLock()
  private var done = false
  private(set) var task: Task<PhotoUpload, Error>!

  init(_ intake: UploadIntake, name: String, length: Int) {
    self.intake = intake
    task = Task { [self] in
      defer { lock.withLock { done = true } }
      return try await intake.begin(name: name, length: length, modifiedAt: nil)
    }
  }

  var isDone: Bool { lock.withLock { done } }

  /// Returns once `waiting` requests wait for memory, or this one has returned (which a
  /// wrong budget may do at once, so that the test fails rather than hangs).
  func waitUntilQueuedOrDone(waiting: Int) async {
    while intake.uploadsWaiting < waiting && !isDone { await Task.yield() }
  }
}

/// Finishes `upload` on a thread of its own, as serve does: its encryption and flushes block.
/// Not a method of the test case, which two `async let`s at once cannot share.
private func finishOffThread(_ upload: PhotoUpload) async throws -> UploadOutcome {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try upload.finish() }) }.start()
  }
}
