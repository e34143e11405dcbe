import Foundation
import Synchronization
import XCTest

@testable import VaultCore
@testable import VaultTerminal

/// The viewer's lazy loading: what is wanted is decoded in order, at most `capacity` kept,
/// and what is no longer wanted is dropped at once.
final class OriginalPreloaderTests: XCTestCase {
  func record(_ number: Int, width: Int = 400, height: Int = 300) -> PhotoRecord {
    let id = String(format: "%032x", number)
    return PhotoRecord(
      id: BlobID(hex: id)!, name: "IMG_\(number).jpg", bytes: 100, format: .jpeg, width: width,
      height: height,
      orientation: 1, modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0), contentHash: id)
  }

  /// A loader that decodes to the size asked for (at a power-of-two denominator), records
  /// what it was asked, and waits for `gate` before each decode when one is set.
  final class FakeLoader: @unchecked Sendable {
    let asked = Mutex<[(number: Int, denominator: Int)]>([])
    let finished = DispatchSemaphore(value: 0)
    /// Signalled as each decode starts.
    let started = DispatchSemaphore(value: 0)
    var gate: DispatchSemaphore?
    var failing: Set<Int> = []

    func load(_ request: OriginalPreloader.Request) throws -> DecodedPhoto {
      started.signal()
      gate?.wait()
      let number = Int(request.record.id.hex, radix: 16)!
      let full = PixelSize(width: request.record.width, height: request.record.height)
      var denominator = 1
      if let minimum = request.minimumSize {
        while denominator < 8 && full.width / (denominator * 2) >= minimum.width
          && full.height / (denominator * 2) >= minimum.height
        {
          denominator *= 2
        }
      }
      asked.withLock { $0.append((number, denominator)) }
      if failing.contains(number) {
        throw VaultError.decodeFailed(path: "IMG_\(number).jpg", reason: "broken")
      }
      let width = full.width / denominator
      let height = full.height / denominator
      return DecodedPhoto(
        image: RGBImage(
          width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 3)),
        fullSize: full, scaleDenominator: denominator)
    }
  }

  func preloader(_ loader: FakeLoader, capacity: Int = 3) -> OriginalPreloader {
    OriginalPreloader(
      capacity: capacity, load: { try loader.load($0) }, finished: { _ in loader.finished.signal() })
  }

  func wait(_ loader: FakeLoader, decodes: Int) {
    for _ in 0..<decodes { XCTAssertEqual(loader.finished.wait(timeout: .now() + 60), .success) }
  }

  func testWantedPhotosAreDecodedInOrderAndAtMostCapacityKept() {
    let loader = FakeLoader()
    let preloader = preloader(loader)
    let requests = (1...5).map { OriginalPreloader.Request(record: record($0), minimumSize: nil) }
    preloader.want(requests)
    wait(loader, decodes: 3)
    XCTAssertEqual(loader.asked.withLock { $0.map(\.number) }, [1, 2, 3])
    XCTAssertEqual(preloader.heldIDs, Set(requests.prefix(3).map(\.record.id)))
    // Paging on: photo 1 is no longer wanted and goes at once; 4 is decoded.
    preloader.want(Array(requests[1...3]))
    XCTAssertNil(preloader.decoded(requests[0].record.id))
    wait(loader, decodes: 1)
    XCTAssertEqual(loader.asked.withLock { $0.map(\.number) }, [1, 2, 3, 4])
    XCTAssertEqual(preloader.heldIDs, Set(requests[1...3].map(\.record.id)))
  }

  func testAFinerScaleIsDecodedAgainAndTheCoarseOneShownMeanwhile() {
    let loader = FakeLoader()
    let preloader = preloader(loader)
    let photo = record(1, width: 4000, height: 3000)
    preloader.want([.init(record: photo, minimumSize: PixelSize(width: 500, height: 375))])
    wait(loader, decodes: 1)
    XCTAssertEqual(preloader.decoded(photo.id)?.scaleDenominator, 8)
    loader.gate = DispatchSemaphore(value: 0)
    preloader.want([.init(record: photo, minimumSize: PixelSize(width: 2000, height: 1500))])
    XCTAssertEqual(
      preloader.decoded(photo.id)?.scaleDenominator, 8, "the coarse one stays while the fine one decodes")
    loader.gate?.signal()
    wait(loader, decodes: 1)
    XCTAssertEqual(preloader.decoded(photo.id)?.scaleDenominator, 2)
    // A coarser need is met by what is held: nothing more is decoded.
    preloader.want([.init(record: photo, minimumSize: PixelSize(width: 500, height: 375))])
    preloader.want([.init(record: photo, minimumSize: PixelSize(width: 500, height: 375))])
    XCTAssertEqual(loader.asked.withLock { $0.count }, 2)
  }

  func testAPhotoNoLongerWantedWhileDecodingIsNotKept() {
    let loader = FakeLoader()
    loader.gate = DispatchSemaphore(value: 0)
    let preloader = preloader(loader)
    let first = record(1)
    let second = record(2)
    preloader.want([.init(record: first, minimumSize: nil)])
    XCTAssertEqual(loader.started.wait(timeout: .now() + 60), .success)
    preloader.want([.init(record: second, minimumSize: nil)])
    loader.gate?.signal()
    loader.gate?.signal()
    wait(loader, decodes: 2)
    XCTAssertEqual(preloader.heldIDs, [second.id])
  }

  func testAFailureIsKeptAndNotRetriedWhileWanted() {
    let loader = FakeLoader()
    loader.failing = [1]
    let preloader = preloader(loader)
    let request = OriginalPreloader.Request(record: record(1), minimumSize: nil)
    preloader.want([request])
    wait(loader, decodes: 1)
    XCTAssertEqual(
      preloader.failure(request.record.id) as? VaultError,
      .decodeFailed(path: "IMG_1.jpg", reason: "broken"))
    preloader.want([request])
    XCTAssertEqual(loader.asked.withLock { $0.count }, 1)
  }
}
