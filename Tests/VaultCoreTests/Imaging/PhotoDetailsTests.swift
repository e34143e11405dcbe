import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// The date taken and camera read from files (`ExifReader`, `PhotoDetailsReader`), on the
/// fixtures Fixtures/generate.py makes, and on what a hostile file may hold.
final class PhotoDetailsTests: XCTestCase {
  static func fixture(_ name: String) throws -> [UInt8] {
    try fileBytes(fixturesPath + "/" + name)
  }

  static func time(_ text: String, nanoseconds: Int32 = 0, offset: Int16? = nil) -> CaptureTime {
    let digits = text.split(whereSeparator: { !$0.isNumber }).map { Int($0)! }
    let seconds = CaptureTime.wallClockSeconds(
      year: digits[0], month: digits[1], day: digits[2], hour: digits[3], minute: digits[4], second: digits[5]
    )!
    return CaptureTime(localSeconds: seconds, nanoseconds: nanoseconds, utcOffsetMinutes: offset)
  }

  /// What each fixture says (see the top of Fixtures/generate.py).
  static let expected: [(name: String, format: ImageFormat, details: PhotoDetails)] = [
    (
      "taken-offset.jpg", .jpeg,
      PhotoDetails(
        taken: time("2024-06-01 14:03:22", nanoseconds: 250_000_000, offset: 120), cameraMake: "Canon",
        cameraModel: "Canon EOS R5")
    ),
    (
      "taken-no-offset.jpg", .jpeg,
      PhotoDetails(
        taken: time("2019-12-31 23:59:59"), cameraMake: "NIKON CORPORATION", cameraModel: "NIKON D750")
    ),
    (
      "taken-garbage.jpg", .jpeg,
      PhotoDetails(taken: time("2021-07-04 12:00:00"), cameraModel: "\u{FFFD}\u{FFFD}Bad")
    ),
    (
      "taken-hostile.jpg", .jpeg,
      PhotoDetails(
        cameraMake: "\u{1B}]0;owned\u{07}\u{1B}[2J" + String(String(repeating: "Evil", count: 73).prefix(50)))
    ),
    (
      "taken-exif.png", .png,
      PhotoDetails(
        taken: time("2023-02-28 08:15:00", offset: -300), cameraMake: "Google", cameraModel: "Pixel 7")
    ),
    ("taken-time.png", .png, PhotoDetails(taken: time("2022-10-09 11:12:13", offset: 0))),
    (
      "taken.heic", .heic,
      PhotoDetails(
        taken: time("2025-01-15 09:30:45", offset: 540), cameraMake: "Apple", cameraModel: "iPhone 15 Pro")
    ),
    ("photo.jpg", .jpeg, PhotoDetails()),
    ("orientation-6.jpg", .jpeg, PhotoDetails()),
    ("gray.png", .png, PhotoDetails()),
    ("orientation-6-exif.heic", .heic, PhotoDetails()),
  ]

  func testFixturesGiveTheirDateAndCamera() throws {
    for (name, format, details) in Self.expected {
      let bytes = try Self.fixture(name)
      XCTAssertEqual(PhotoDetailsReader.read(PinnedBytes(bytes), format: format), details, name)
    }
    XCTAssertEqual(Self.expected[3].details.cameraMake?.utf8.count, PhotoDetails.textLimit)
  }

  func testImportAndAFileTooLargeToHoldReadTheSameDetails() throws {
    let folder = try makeTemporaryFolder(self)
    for (name, format, details) in Self.expected {
      let path = folder + "/" + name
      try writeBytes(try Self.fixture(name), to: path)
      let source = try SourceFile(path: path)
      let image = try Thumbnailer().open(source, format: format)
      XCTAssertEqual(try PhotoDetailsReader.read(image, file: nil, source: source), details, name)
      let bytes = try source.readAll()
      let fromBytes = try Thumbnailer().open(bytes, name: name, format: format)
      XCTAssertEqual(try PhotoDetailsReader.read(fromBytes, file: bytes, source: source), details, name)
    }
  }

  func testOrientationAndDetailsComeFromOneBlock() throws {
    let tiff = TestImages.exifSegment(6, littleEndian: true, tag: 0x0112, type: 3)
    let reader = try XCTUnwrap(tiff.withUnsafeBytes { ExifReader(app1: $0) })
    XCTAssertEqual(reader.orientation, 6)
    XCTAssertEqual(reader.details, PhotoDetails())
    // Taken fixtures carry no orientation; the orientation fixtures no date.
    let dated = try Self.fixture("taken-offset.jpg")
    XCTAssertEqual(try JPEGDecoder(bytes: dated, name: "taken").orientation(), 1)
    XCTAssertEqual(try JPEGDecoder(bytes: try Self.fixture("orientation-7.jpg"), name: "7").orientation(), 7)
  }

  func testWhatIsNotADateIsNone() {
    func parse(_ text: String, offset: String? = nil, subSeconds: String? = nil) -> CaptureTime? {
      Array(text.utf8).withUnsafeBytes { date in
        Array((offset ?? "").utf8).withUnsafeBytes { offsetBytes in
          Array((subSeconds ?? "").utf8).withUnsafeBytes { sub in
            CaptureTime(
              exifDate: date, offset: offset == nil ? nil : offsetBytes,
              subSeconds: subSeconds == nil ? nil : sub)
          }
        }
      }
    }
    for bad in [
      "0000:00:00 00:00:00", "    :  :     :  :  ", "2023:02:29 10:00:00", "2024:06:31 10:00:00",
      "2024:13:01 10:00:00", "2024:06:01 24:00:00", "2024:06:01 14:60:00", "2024:06:01 14:03:60",
      "2024:06:01 14:03", "2024:06:01 14:03:22 and more", "2024:06-01 14:03:22", "+024:06:01 14:03:2",
      "", "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
    ] {
      XCTAssertNil(parse(bad), bad.debugDescription)
    }
    XCTAssertEqual(parse("2024:02:29 10:00:00"), Self.time("2024-02-29 10:00:00"))
    XCTAssertEqual(parse("2024-06-01T14:03:22\0"), Self.time("2024-06-01 14:03:22"))
    XCTAssertEqual(parse("0001:01:01 00:00:00")?.localSeconds, JournalEntry.takenRange.lowerBound)
    XCTAssertEqual(parse("9999:12:31 23:59:59")?.localSeconds, JournalEntry.takenRange.upperBound)
    let day = "2024:06:01 14:03:22"
    XCTAssertEqual(parse(day, offset: "+14:00")?.utcOffsetMinutes, 840)
    XCTAssertEqual(parse(day, offset: "-03:30\0")?.utcOffsetMinutes, -210)
    for offset in ["+99:99", "+24:00", "   :  ", "02:00", "+2:00", "+02:00x", ""] {
      XCTAssertEqual(parse(day, offset: offset), Self.time("2024-06-01 14:03:22"), offset)
    }
    XCTAssertEqual(parse(day, subSeconds: "25")?.nanoseconds, 250_000_000)
    XCTAssertEqual(parse(day, subSeconds: "007\0")?.nanoseconds, 7_000_000)
    XCTAssertEqual(parse(day, subSeconds: "123456789123")?.nanoseconds, 123_456_789)
    for garbage in ["ab", "-5", " ", ""] {
      XCTAssertEqual(parse(day, subSeconds: garbage)?.nanoseconds, 0, garbage)
    }
  }

  func testMakeAndModelAreTrimmedAndCappedOnACharacterBoundary() {
    func clean(_ bytes: [UInt8]) -> String? { bytes.withUnsafeBytes(PhotoDetails.cleanText) }
    XCTAssertEqual(clean(Array("  Canon \0\0junk".utf8)), "Canon")
    XCTAssertNil(clean(Array("   \0".utf8)))
    XCTAssertNil(clean([0, 65]))
    let accents = clean(Array(String(repeating: "é", count: 40).utf8))
    XCTAssertEqual(accents, String(repeating: "é", count: 32))
    let spaced = clean(Array((String(repeating: "a", count: 63) + " b").utf8))
    XCTAssertEqual(spaced, String(repeating: "a", count: 63))
  }

  /// Every cut of every dated file, and seeded byte flips in its EXIF block, read without
  /// trapping (a fuzzer in miniature; `make fuzz` runs the real one), and a cut before the
  /// end of the EXIF block never invents a date it does not hold.
  func testCutAndFlippedFilesNeverTrap() throws {
    var random = SeededGenerator(seed: 12)
    for (name, format, details) in Self.expected where format != .heic {
      let whole = try Self.fixture(name)
      for length in 0...min(whole.count, 700) {
        let read = Array(whole[0..<length]).withUnsafeBytes {
          format == .jpeg ? PhotoDetailsReader.jpeg($0) : PhotoDetailsReader.png($0)
        }
        if let taken = read.taken { XCTAssertEqual(taken, details.taken, "\(name) cut at \(length)") }
      }
      for _ in 0..<2000 {
        var flipped = whole
        for _ in 0..<4 {
          let position = 20 + Int(random.next() % UInt64(min(whole.count, 600) - 20))
          flipped[position] ^= UInt8(truncatingIfNeeded: random.next() | 1)
        }
        _ = flipped.withUnsafeBytes {
          format == .jpeg ? PhotoDetailsReader.jpeg($0) : PhotoDetailsReader.png($0)
        }
        _ = flipped.withUnsafeBytes { ExifReader(tiff: UnsafeRawBufferPointer(rebasing: $0[20...])) }
      }
    }
  }

  func testWallClockRoundTrips() {
    for seconds: Int64 in [
      0, -1, 86399, 86400, 951_782_400, 1_717_250_602, JournalEntry.takenRange.lowerBound,
      JournalEntry.takenRange.upperBound, -2_208_988_800,
    ] {
      let clock = CaptureTime(localSeconds: seconds).wallClock
      XCTAssertEqual(
        CaptureTime.wallClockSeconds(
          year: clock.year, month: clock.month, day: clock.day, hour: clock.hour, minute: clock.minute,
          second: clock.second), seconds, "\(seconds)")
    }
  }
}
