import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// Live Photos in the core: the `liveIdentifier` entry's bytes and merge rule, the pairs
/// derived from the listed photos, the pairing of one session, and Apple's maker note.
final class LivePhotoJournalTests: XCTestCase {
  func record(_ name: String, _ format: ImageFormat) -> PhotoRecord {
    PhotoRecord(
      id: .random(), name: name, bytes: 10, format: format, width: 4, height: 3, orientation: 1,
      modifiedAt: Timestamp(seconds: 1), importedAt: .now(), contentHash: String(repeating: "ab", count: 32))
  }

  func decode(_ bytes: [UInt8]) throws -> [JournalEntry] {
    var decoded: [JournalEntry] = []
    try (bytes + [0]).withUnsafeBytes { _ = try JournalEntry.decodeAll($0) { decoded.append($0) } }
    return decoded
  }

  func testEntryRoundTripsAndMalformedOnesAreDamage() throws {
    let id = BlobID.random()
    let entry = JournalEntry.liveIdentifier(id, identifier: "1F2E3D4C-AAAA-BBBB-CCCC-000011112222")
    var writer = ByteWriter()
    entry.encode(into: &writer)
    XCTAssertEqual(writer.output.count, entry.encodedLength)
    XCTAssertEqual(writer.output.count, 1 + 16 + 1 + 36)
    XCTAssertEqual(try decode(writer.output), [entry])
    // The example of docs/FORMAT.md, "Live Photos".
    var example = ByteWriter()
    let exampleID = (0..<16).map { UInt8($0 * 0x11) }.withUnsafeBytes { BlobID(bytes: $0) }
    JournalEntry.liveIdentifier(exampleID, identifier: "ABCD-1234").encode(into: &example)
    XCTAssertEqual(
      example.output.map { String(format: "%02x", $0) }.joined(),
      "0800112233445566778899aabbccddeeff09414243442d31323334")
    let length = writer.output.withUnsafeBytes { JournalEntry.encodedLength(at: 0, in: $0) }
    XCTAssertEqual(length, writer.output.count)
    for (why, change) in [
      ("an empty identifier", { (bytes: inout [UInt8]) in bytes[17] = 0 }),
      ("a control character", { (bytes: inout [UInt8]) in bytes[18] = 0x1B }),
      ("a length past the limit", { (bytes: inout [UInt8]) in bytes[17] = 65 }),
    ] as [(String, (inout [UInt8]) -> Void)] {
      var bytes = writer.output
      change(&bytes)
      XCTAssertThrowsError(try decode(bytes), why)
    }
  }

  /// Of the stills that carry a MOV's identifier, the MOV's is the first in list order named
  /// as it, else the first: whatever the names and orders, and the order the entries came in.
  func testAMovieIsPairedWithTheStillNamedAsItElseTheFirst() {
    let names = ["IMG_0001.JPG", "img_0001.heic", "EVIL.JPG", "IMG_0002.JPG", "IMG_0001 2.JPG"]
    for seed in UInt64(0)..<300 {
      var random = SeededGenerator(seed: seed)
      let motion = record("IMG_0001.MOV", .mov)
      let stills = (0..<Int.random(in: 1...5, using: &random)).map { _ in
        record(names.randomElement(using: &random)!, Bool.random(using: &random) ? .jpeg : .heic)
      }
      let halves = (stills + [motion]).shuffled(using: &random)
      var state = SpaceState()
      for (order, photo) in halves.enumerated() { state.apply(.added(photo, order: Int64(order))) }
      for photo in halves.shuffled(using: &random) { state.apply(.liveIdentifier(photo.id, identifier: "X")) }
      let pairs = LivePairs(identifiers: state.liveIdentifiers) { id in
        state.photo(id).map { ($0.record.format, $0.order, $0.record.name) }
      }
      let inOrder = halves.filter { $0.format != .mov }
      let expected = (inOrder.first { $0.name.lowercased().hasPrefix("img_0001.") } ?? inOrder.first)?.id
      XCTAssertEqual(pairs.stillOfMotion[motion.id], expected, "seed \(seed)")
    }
  }

  func testPairsAreDerivedFromListedHalvesAndSurviveCompaction() throws {
    let (still, motion, other, video) = (
      record("IMG_1.HEIC", .heic), record("IMG_1.MOV", .mov), record("x.jpg", .jpeg), record("y.MOV", .mov)
    )
    var state = SpaceState()
    for (order, photo) in [still, motion, other, video].enumerated() {
      state.apply(.added(photo, order: Int64(order)))
    }
    // The same id given two identifiers keeps the smaller, in any order.
    state.apply(.liveIdentifier(motion.id, identifier: "B"))
    state.apply(.liveIdentifier(still.id, identifier: "A"))
    state.apply(.liveIdentifier(motion.id, identifier: "A"))
    state.apply(.liveIdentifier(other.id, identifier: "C"))
    state.apply(.liveIdentifier(video.id, identifier: "D"))
    func pairs(_ state: SpaceState) -> LivePairs {
      LivePairs(identifiers: state.liveIdentifiers) { id in
        state.photo(id).map { ($0.record.format, $0.order, $0.record.name) }
      }
    }
    XCTAssertEqual(pairs(state).motionOfStill, [still.id: motion.id])
    XCTAssertEqual(pairs(state).stillOfMotion, [motion.id: still.id])
    var rebuilt = SpaceState()
    for entry in state.compacted() { rebuilt.apply(entry) }
    XCTAssertEqual(rebuilt.liveIdentifiers, state.liveIdentifiers)
    // Deleting a half ends the pair; its identifier goes, and a late one is ignored.
    state.apply(.deleted(motion.id))
    state.apply(.liveIdentifier(motion.id, identifier: "A"))
    XCTAssertTrue(pairs(state).isEmpty)
    XCTAssertNil(state.liveIdentifiers[motion.id])
  }

  func testSessionPairsByStemWhenAtMostOneHalfHasAnIdentifier() {
    var pairing = LivePairing()
    let (still, motion) = (record("IMG_0001.HEIC", .heic), record("img_0001.mov", .mov))
    XCTAssertEqual(pairing.entries(for: still, identifier: nil, place: "/card"), [])
    let made = pairing.entries(for: motion, identifier: nil, place: "/card")
    guard case .liveIdentifier(still.id, let first)? = made.first,
      case .liveIdentifier(motion.id, first)? = made.last
    else { return XCTFail("not paired: \(made)") }
    XCTAssertTrue(first.hasPrefix("vault-"))
    // One identifier: the other half is given it. Two different ones: apart.
    let (a, b) = (record("A.JPG", .jpeg), record("A.MOV", .mov))
    XCTAssertEqual(
      pairing.entries(for: a, identifier: "X", place: "/card"), [.liveIdentifier(a.id, identifier: "X")])
    XCTAssertEqual(
      pairing.entries(for: b, identifier: nil, place: "/card"), [.liveIdentifier(b.id, identifier: "X")])
    let (c, d) = (record("C.JPG", .jpeg), record("C.MOV", .mov))
    _ = pairing.entries(for: c, identifier: "Y", place: "/card")
    XCTAssertEqual(
      pairing.entries(for: d, identifier: "Z", place: "/card"), [.liveIdentifier(d.id, identifier: "Z")])
    // Another folder is another place.
    let (e, f) = (record("E.JPG", .jpeg), record("E.MOV", .mov))
    _ = pairing.entries(for: e, identifier: nil, place: "/one")
    XCTAssertEqual(pairing.entries(for: f, identifier: nil, place: "/two"), [])
  }

  func testAppleMakerNoteIdentifierIsReadAndBoundsChecked() {
    let segment = TestLivePhotos.exifSegment(identifier: "ABCD-1234")
    let jpeg: [UInt8] = [0xFF, 0xD8] + segment + [0xFF, 0xD9]
    XCTAssertEqual(jpeg.withUnsafeBytes(AppleContentIdentifier.inJPEG), "ABCD-1234")
    // Every prefix reads as nothing, never past its end.
    for count in 0..<jpeg.count - 3 {
      let cut = Array(jpeg.prefix(count))
      XCTAssertNil(cut.withUnsafeBytes(AppleContentIdentifier.inJPEG), "\(count)")
    }
    var other = jpeg
    other[2 + 4 + 6 + 44] = UInt8(ascii: "B")  // "Bpple iOS": another maker's note
    XCTAssertNil(other.withUnsafeBytes(AppleContentIdentifier.inJPEG))
  }
}
