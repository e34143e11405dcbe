import Foundation
import Synchronization
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// Each file is imported from one open descriptor: never blocking on what is not a
/// regular file, and with its thumbnail made from the very bytes that are stored.
final class ImportSourceTests: XCTestCase {
  var folder = ""
  var space: Space!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    let vault = try makeVault(in: folder)
    try vault.createSpace(password: password("first"))
    space = try vault.unlock(password: password("first"), access: .write)
  }

  func testAFIFOIsRefusedAtOnceInsteadOfBlockingTheImport() throws {
    let inside = folder + "/in"
    try FileManager.default.createDirectory(atPath: inside, withIntermediateDirectories: true)
    XCTAssertEqual(mkfifo(folder + "/pipe.jpg", 0o600), 0)
    XCTAssertEqual(mkfifo(inside + "/pipe.jpg", 0o600), 0)
    try FileManager.default.createSymbolicLink(
      atPath: inside + "/link.jpg", withDestinationPath: folder + "/pipe.jpg")
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: inside + "/photo.jpg")
    let files = [folder + "/pipe.jpg", inside + "/pipe.jpg", inside + "/link.jpg", inside + "/photo.jpg"]
    // A plain open of a FIFO with no writer never returns: only a hang can reach this
    // timeout, however slow the machine.
    let done = expectation(description: "import finished")
    // The import's thread opens the space for itself: this one lets go of its own.
    space = nil
    let vaultPath = folder + "/vault"
    let log = EventLog()
    let completed = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      _ = try? PhotoImporter(parallelism: 2).importFiles(files) {
        try Vault.open(at: vaultPath).unlock(password: password("first"), access: .write)
      } report: { event, _ in
        log.append(event)
      }
      done.fulfill()
      completed.signal()
    }
    let finished = XCTWaiter().wait(for: [done], timeout: 60) == .completed
    if !finished {
      // Let a blocked reader go, so that the import (and this test) can end.
      for fifo in [folder + "/pipe.jpg", inside + "/pipe.jpg"] {
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
      }
      XCTFail("the import blocked on a FIFO")
    }
    completed.wait()
    var failures: [String] = []
    var added: [String] = []
    for event in log.events {
      switch event {
      case .failed(let path, let error):
        failures.append(path)
        XCTAssertEqual(error, .io(path: path, reason: "not a regular file"))
      case .added(let path, _): added.append(path)
      default: XCTFail("\(event)")
      }
    }
    XCTAssertEqual(failures, Array(files.prefix(3)))
    XCTAssertEqual(added, [inside + "/photo.jpg"])
  }

  func testEachThumbnailIsMadeFromTheBytesStored() throws {
    // Photos named through symlinks, and two too large to be held in memory (a JPEG and a
    // HEIC followed by padding), which are read through their descriptor twice.
    for (name, fixture) in [("large.jpg", "quad-420.jpg"), ("large.heic", "orientation-6.heic")] {
      let large =
        try fileBytes(fixturesPath + "/" + fixture)
        + [UInt8](repeating: 0, count: PhotoImporter.inMemoryFileLimit)
      try writeBytes(large, to: folder + "/" + name)
    }
    var files: [String] = []
    for name in [
      "photo.jpg", "gray.png", "interlaced.png", "orientation-6.jpg", "orientation-6-exif.heic",
    ] {
      try FileManager.default.createSymbolicLink(
        atPath: folder + "/" + name, withDestinationPath: fixturesPath + "/" + name)
      files.append(folder + "/" + name)
    }
    files += [folder + "/large.jpg", folder + "/large.heic"]
    var added = 0
    try PhotoImporter(parallelism: 2).importFiles(files, into: space) { event, _ in
      if case .added = event { added += 1 } else { XCTFail("\(event)") }
    }
    XCTAssertEqual(added, files.count)
    for entry in space.entries {
      let record = entry.record
      var original: [UInt8] = []
      try space.openOriginal(record).readContent { original.append(contentsOf: $0) }
      XCTAssertEqual(original, try fileBytes(folder + "/" + record.name), record.name)
      // Hashed once, from the bytes read (or, too large to keep, as they were read).
      let hasher = ContentHasher(key: space.master.contentHashKey())
      original.withUnsafeBytes { hasher.update($0) }
      XCTAssertEqual(record.contentHash, hasher.finish(), record.name)
      let expected = try Thumbnailer().makeThumbnail(
        bytes: original, name: record.name, format: record.format)
      XCTAssertEqual(try space.thumbnail(of: record), expected.jpeg, record.name)
    }
    var duplicates = 0
    try PhotoImporter(parallelism: 2).importFiles(files, into: space) { event, _ in
      if case .duplicate = event { duplicates += 1 } else { XCTFail("\(event)") }
    }
    XCTAssertEqual(duplicates, files.count)
  }

  /// The decoder helper reads the file through its descriptor while this process holds the
  /// bytes it stores: a write in between would store one version with the thumbnail of
  /// another, so the file must be as it was opened once the helper answered.
  func testAFileWrittenWhileItIsImportedIsRefused() throws {
    let path = folder + "/photo.jpg"
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: path)
    // Last modified long ago: a write now is seen, however coarse the clock.
    var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
    XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
    let source = try SourceFile(path: path)
    XCTAssertNoThrow(try source.checkUnchanged())
    let writer = open(path, O_WRONLY)
    XCTAssertGreaterThanOrEqual(writer, 0)
    var byte: UInt8 = 0
    XCTAssertEqual(pwrite(writer, &byte, 1, 100), 1)
    close(writer)
    XCTAssertThrowsError(try source.checkUnchanged()) { error in
      XCTAssertEqual(
        error as? VaultError, .io(path: path, reason: "file changed while it was being imported"))
    }
  }

  /// A file held whole is decoded by the helper from the sealed memory it was read into,
  /// not read again from the file: a picture written into the file afterwards, even one the
  /// size-and-times check cannot see (through a shared mapping, or a FUSE file system that
  /// answers each reader differently), cannot become the thumbnail of the bytes stored.
  func testTheHelperDecodesTheBytesReadNotTheFileAsItIsNow() throws {
    let path = folder + "/photo.jpg"
    let red = try solidJPEG(red: 255, blue: 0)
    try writeBytes(red, to: path)
    let source = try SourceFile(path: path)
    let (held, input) = try PhotoImporter.hold(source)
    // The same file, rewritten in place with another picture once vault has read it.
    let writer = open(path, O_WRONLY | O_TRUNC)
    XCTAssertGreaterThanOrEqual(writer, 0)
    let blue = try solidJPEG(red: 0, blue: 255)
    XCTAssertEqual(blue.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }, blue.count)
    close(writer)
    let request = DecodedImport.request(
      format: .jpeg, name: path, size: source.size, input: input, thumbnailer: Thumbnailer())
    let analysis = try DecoderPool(size: 1).analyse(request, input: input, name: path)
    XCTAssertEqual(held.map { Array($0.bytes) }, red)
    let pixels = try XCTUnwrap(analysis.thumbnail).image.pixels
    XCTAssertEqual(
      [pixels[0], pixels[2]].map { $0 > 128 }, [true, false], "the thumbnail is not the red picture")
  }

  private func solidJPEG(red: UInt8, blue: UInt8) throws -> [UInt8] {
    let pixels = [[UInt8]](repeating: [red, 0, blue], count: 64 * 48).flatMap { $0 }
    return try JPEGEncoder.encode(RGBImage(width: 64, height: 48, pixels: pixels), quality: 90)
  }

  func testAPictureThatWouldNeedTooMuchMemoryIsRefusedFromItsHeader() throws {
    try writeBytes(try progressiveJPEG(width: 14000, height: 14000), to: folder + "/bomb.jpg")
    XCTAssertThrowsError(try Thumbnailer().makeThumbnail(path: folder + "/bomb.jpg", format: .jpeg)) {
      error in
      XCTAssertEqual(
        "\(error)",
        "'\(folder)/bomb.jpg': decoding it would need 567 MiB of memory, over the 256 MiB a photo may use")
    }
    // A 12-megapixel progressive JPEG needs about 36 MB of coefficients: it decodes.
    try writeBytes(try progressiveJPEG(width: 4000, height: 3000), to: folder + "/twelve.jpg")
    let thumbnail = try Thumbnailer().makeThumbnail(path: folder + "/twelve.jpg", format: .jpeg)
    XCTAssertEqual([thumbnail.width, thumbnail.height], [4000, 3000])
  }
}

/// Events reported on the import's thread, read on the test's once it is done.
private final class EventLog: Sendable {
  private let stored = Mutex<[ImportEvent]>([])

  func append(_ event: ImportEvent) {
    stored.withLock { $0.append(event) }
  }

  var events: [ImportEvent] { stored.withLock { $0 } }
}

extension ImportSourceTests {
  func testAHeaderMadeOfMarkersKeepsAtMostAMebibyteOfThem() throws {
    // 40 APP1 segments of 64 KiB before the EXIF one: libjpeg kept them all (2.5 MiB, and
    // a larger file keeps more); now segments past the first MiB are skipped, the EXIF
    // orientation among them, and the picture still decodes.
    let source = try fileBytes(fixturesPath + "/orientation-6.jpg")
    var padded: [UInt8] = [0xFF, 0xD8]
    for _ in 0..<40 { padded += [0xFF, 0xE1, 0xFF, 0xFF] + [UInt8](repeating: 0x20, count: 0xFFFD) }
    padded += source[2...]
    try writeBytes(padded, to: folder + "/padded.jpg")
    let upright = try Thumbnailer().makeThumbnail(path: fixturesPath + "/orientation-6.jpg", format: .jpeg)
    let thumbnail = try Thumbnailer().makeThumbnail(path: folder + "/padded.jpg", format: .jpeg)
    XCTAssertEqual(upright.orientation, 6)
    XCTAssertEqual(thumbnail.orientation, 1)
    XCTAssertEqual([thumbnail.width, thumbnail.height], [upright.height, upright.width])
  }
}
