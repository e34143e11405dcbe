import VaultCore
import XCTest

@testable import VaultTerminal

/// What the viewer says after an export: items as `list` counts them, and the files they
/// took (one Live Photo was "exported 2 photos").
final class ExportOutcomeTests: XCTestCase {
  func testALivePhotoIsOneItemOfTwoFiles() {
    var live = ItemCount()
    live.livePhotos = 1
    XCTAssertEqual(
      PhotoViewer.exportOutcome(
        written: ["/x/a.jpg", "/x/a.mov"], items: live, failures: [], of: 1, to: "/x"),
      "exported 1 Live Photo as 2 files to /x")
    var video = ItemCount()
    video.videos = 1
    XCTAssertEqual(
      PhotoViewer.exportOutcome(written: ["/x/v.mp4"], items: video, failures: [], of: 1, to: "/x"),
      "exported /x/v.mp4")
    var mixed = ItemCount()
    (mixed.photos, mixed.videos) = (2, 1)
    XCTAssertEqual(
      PhotoViewer.exportOutcome(
        written: ["/x/1", "/x/2", "/x/3"], items: mixed, failures: ["'b.jpg' not exported: gone"], of: 4,
        to: "/x"),
      "error: exported 3 items (2 photos, 1 video) of 4 items to /x; 'b.jpg' not exported: gone")
  }
}
