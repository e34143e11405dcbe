import HTTPTypes
import VaultCore
import XCTest

@testable import VaultServe

/// How an upload's failure is answered to the page.
final class UploadRefusalTests: XCTestCase {
  /// After `vault passwd` elsewhere, uploads are refused with what to do, not "the vault
  /// could not store it".
  func testASpaceMovedByAPasswordChangeSaysToStartAgain() {
    let refusal = UploadRefusal(VaultError.spaceMoved, at: .storing)
    XCTAssertEqual(refusal.status, .serviceUnavailable)
    XCTAssertEqual(
      refusal.reason, "the vault's password was changed on the computer; start vault serve again")
    XCTAssertTrue(refusal.detail.hasPrefix("not stored: the space was moved or removed"), refusal.detail)
  }

  /// A full disk is said as such, with the status that means it, whenever it happens.
  func testAFullDiskIsInsufficientStorage() {
    for stage in [UploadRefusal.Stage.admission, .receiving, .storing] {
      let refusal = UploadRefusal(
        VaultError.uploadRefused(name: "clip.mp4", reason: PhotoUpload.diskFullReason), at: stage)
      XCTAssertEqual(refusal.status.code, 507)
      XCTAssertEqual(refusal.reason, "the vault's disk is full")
    }
  }
}
