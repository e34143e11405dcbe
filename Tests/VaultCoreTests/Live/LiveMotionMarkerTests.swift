import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// The marker that makes a MOV a Live Photo's movie (`LiveMotionMarker`): found in a movie
/// with the still-image-time track, not in one that only carries the identifier, and never
/// a trap on a cut or damaged description.
final class LiveMotionMarkerTests: XCTestCase {
  func marked(_ bytes: [UInt8]) throws -> Bool {
    try LiveMotionMarker.present(size: Int64(bytes.count)) { offset, count in
      Array(bytes[Int(offset)..<min(Int(offset) + count, bytes.count)])
    }
  }

  func testTheStillImageTimeTrackMarksAMovieAndTheIdentifierAloneDoesNot() throws {
    let folder = try makeTemporaryFolder(self)
    try TestLivePhotos.motion(folder + "/live.MOV", identifier: "AAAA-1111")
    try TestLivePhotos.motion(folder + "/tagged.MOV", identifier: "AAAA-1111", liveMarkers: false)
    XCTAssertTrue(try marked(try fileBytes(folder + "/live.MOV")))
    XCTAssertFalse(try marked(try fileBytes(folder + "/tagged.MOV")))
  }

  func testAnotherKeyOrNamespaceIsNoMarkerAndCutOrDamagedDescriptionsAreRead() throws {
    let track = TestLivePhotos.stillImageTimeTrack()
    // The sample description's contents: after its size and type.
    let type = try XCTUnwrap(find("stsd", in: track))
    let size = track[type - 4..<type].reduce(0) { $0 << 8 | Int($1) }
    let description = Array(track[type + 4..<type - 4 + size])
    XCTAssertTrue(LiveMotionMarker.declaresStillImageTime(description))
    let key = Array("still-image-time".utf8)
    let at = try XCTUnwrap(find(String(decoding: key, as: UTF8.self), in: description))
    var other = description
    other[at] = UInt8(ascii: "S")
    XCTAssertFalse(LiveMotionMarker.declaresStillImageTime(other))
    let namespace = try XCTUnwrap(find("mdta", in: description))
    var elsewhere = description
    elsewhere[namespace] = UInt8(ascii: "u")
    XCTAssertFalse(LiveMotionMarker.declaresStillImageTime(elsewhere))
    for length in 0..<description.count {
      _ = LiveMotionMarker.declaresStillImageTime(Array(description.prefix(length)))
    }
    var generator = SeededGenerator(seed: 31)
    for _ in 0..<2000 {
      var damaged = description
      for _ in 0..<Int.random(in: 1...4, using: &generator) {
        damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
          in: 0...255, using: &generator)
      }
      _ = LiveMotionMarker.declaresStillImageTime(damaged)
    }
  }

  /// Where `text` first appears in `bytes`.
  func find(_ text: String, in bytes: [UInt8]) -> Int? {
    let needle = Array(text.utf8)
    guard bytes.count >= needle.count else { return nil }
    return (0...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle }
  }
}
