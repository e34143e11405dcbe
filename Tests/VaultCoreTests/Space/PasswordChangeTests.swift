import Foundation
import XCTest

@testable import VaultCore

/// `Vault.changePassword` and the states a kill between its steps leaves (docs/FORMAT.md,
/// "Changing the password"), made by hand so that each is checked on its own.
final class PasswordChangeTests: XCTestCase {
  var folder = ""
  var vault: Vault!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try makeVault(in: folder)
    try vault.createSpace(password: password("old one"))
    try vault.createSpace(password: password("decoy"))
    let space = try vault.unlock(password: password("old one"), access: .write)
    try PhotoImporter().importFiles(["photo.jpg", "gray.png"].map { fixturesPath + "/" + $0 }, into: space) {
      _, _ in
    }
  }

  private func tag(_ text: String) throws -> String {
    try vault.passwordKeys(for: password(text)).spaceTag
  }

  private func names(_ text: String) throws -> [String] {
    try vault.unlock(password: password(text), access: .read).entries.map(\.record.name)
  }

  private func assertOpensNothing(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try vault.unlock(password: password(text), access: .read), file: file, line: line) {
      XCTAssertEqual($0 as? VaultError, .noSpaceForPassword, file: file, line: line)
    }
  }

  func testTheSpaceMovesToTheNewPasswordWithItsPhotos() throws {
    let oldTag = try tag("old one")
    try vault.changePassword(from: password("old one")) { try password("new one") }
    XCTAssertEqual(try names("new one"), ["photo.jpg", "gray.png"])
    assertOpensNothing("old one")
    XCTAssertEqual(try names("decoy"), [])
    let moved = vault.path + "/" + (try tag("new one"))
    XCTAssertFalse(fileExists(vault.path + "/" + oldTag))
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: moved).filter { !$0.hasPrefix("Journal") }.sorted(),
      ["Photo", "Thumb", "key", "recovery"], "no key-next and no writer's mark are left")
    let verify = try SpaceVerifier(space: vault.unlock(password: password("new one"), access: .read)).verify()
    XCTAssertFalse(verify.contains(where: \.isProblem), "\(verify)")
  }

  func testRefusalsChangeNothing() throws {
    let before = try snapshotOfFolder(vault.path)
    XCTAssertThrowsError(try vault.changePassword(from: password("old one")) { try password("old one") }) {
      XCTAssertEqual($0 as? VaultError, .newPasswordIsCurrent)
    }
    XCTAssertThrowsError(try vault.changePassword(from: password("old one")) { try password("decoy") }) {
      XCTAssertEqual($0 as? VaultError, .newPasswordOpensAnotherSpace)
    }
    var asked = false
    XCTAssertThrowsError(
      try vault.changePassword(from: password("wrong")) {
        asked = true
        return try password("new one")
      }
    ) { XCTAssertEqual($0 as? VaultError, .noSpaceForPassword) }
    XCTAssertFalse(asked, "the new password is asked for only once the current one opens a space")
    XCTAssertEqual(try snapshotOfFolder(vault.path), before)
    XCTAssertEqual(try names("old one"), ["photo.jpg", "gray.png"])
  }

  /// Killed after `key-next` was written, before the folder was renamed: only the old
  /// password opens the space; its next writer removes `key-next`.
  func testACutBeforeTheFolderRenameLeavesTheOldPassword() throws {
    let oldFolder = vault.path + "/" + (try tag("old one"))
    let newKeys = try vault.passwordKeys(for: password("new one"))
    let master = try vault.unlock(password: password("old one"), access: .read).master
    try writeBytes(KeyWrap.wrap(master, with: newKeys.wrappingKey), to: oldFolder + "/key-next")
    assertOpensNothing("new one")
    XCTAssertEqual(try names("old one"), ["photo.jpg", "gray.png"])
    XCTAssertTrue(fileExists(oldFolder + "/key-next"), "a reader changes nothing")
    _ = try vault.unlock(password: password("old one"), access: .write)
    XCTAssertFalse(fileExists(oldFolder + "/key-next"))
    // A change made then goes through.
    try vault.changePassword(from: password("old one")) { try password("new one") }
    XCTAssertEqual(try names("new one"), ["photo.jpg", "gray.png"])
  }

  /// Killed between the two renames: the folder has the new password's name and still the
  /// old `key`; only the new password opens it (from `key-next`), and its next writer makes
  /// `key-next` the key.
  func testACutBetweenTheRenamesLeavesTheNewPassword() throws {
    let oldFolder = vault.path + "/" + (try tag("old one"))
    let newFolder = vault.path + "/" + (try tag("new one"))
    let newKeys = try vault.passwordKeys(for: password("new one"))
    let master = try vault.unlock(password: password("old one"), access: .read).master
    let oldKey = try fileBytes(oldFolder + "/key")
    try writeBytes(KeyWrap.wrap(master, with: newKeys.wrappingKey), to: oldFolder + "/key-next")
    XCTAssertEqual(rename(oldFolder, newFolder), 0)
    assertOpensNothing("old one")
    XCTAssertEqual(try names("new one"), ["photo.jpg", "gray.png"])
    XCTAssertEqual(try fileBytes(newFolder + "/key"), oldKey, "a reader changes nothing")
    _ = try vault.unlock(password: password("new one"), access: .write)
    XCTAssertFalse(fileExists(newFolder + "/key-next"))
    XCTAssertNotNil(KeyWrap.unwrap(try fileBytes(newFolder + "/key"), with: newKeys.wrappingKey))
    // A space opened to read that then changes (the viewer) finishes it too.
    try writeBytes(oldKey, to: newFolder + "/key-next")
    XCTAssertEqual(rename(newFolder + "/key-next", newFolder + "/key.old"), 0)
    try writeBytes(KeyWrap.wrap(master, with: newKeys.wrappingKey), to: newFolder + "/key-next")
    XCTAssertEqual(rename(newFolder + "/key.old", newFolder + "/key"), 0)
    let reader = try vault.unlock(password: password("new one"), access: .read)
    try reader.change { _ in }
    XCTAssertFalse(fileExists(newFolder + "/key-next"))
    XCTAssertNotNil(KeyWrap.unwrap(try fileBytes(newFolder + "/key"), with: newKeys.wrappingKey))
  }

  /// A command that waited for the space's lock while the password changed holds it on the
  /// renamed folder: it stops rather than read what is at the old path.
  func testACommandThatWaitedForTheLockNoticesTheMove() throws {
    var passwd: Space? = try vault.unlock(password: password("old one"), access: .write)
    let oldFolder = passwd!.directory
    let waiting = DispatchSemaphore(value: 0)
    Space.onLockWait { _, _ in waiting.signal() }
    defer { Space.onLockWait(nil) }
    let outcome = WaitingReader()
    DispatchQueue.global().async { [path = vault.path] in
      // Readers wait for a writer as long as it takes.
      outcome.finish(
        Result { try Vault.open(at: path).unlock(password: password("old one"), access: .read).entries.count }
      )
    }
    // Told once the reader has waited a moment for the lock.
    waiting.wait()
    try passwd!.moveToPassword(vault.passwordKeys(for: password("new one")), vaultPath: vault.path)
    // A space made at the old path since (`vault init` with the old password) is no more
    // the waiting reader's space than nothing is.
    try vault.createSpace(password: password("old one"))
    XCTAssertTrue(fileExists(oldFolder))
    passwd = nil
    XCTAssertThrowsError(try outcome.wait()) { XCTAssertEqual($0 as? VaultError, .spaceMoved) }
    XCTAssertEqual(try names("new one"), ["photo.jpg", "gray.png"])
  }
}

/// The outcome of a reader started on another thread.
private final class WaitingReader: Sendable {
  private let result = WaitableMutex<Result<Int, Error>?>(nil)

  func finish(_ result: Result<Int, Error>) {
    self.result.withLock { $0 = result }
    self.result.wakeAll()
  }

  func wait() throws -> Int {
    try result.withLock(waiting: { $0 == nil ? .untilWoken : .no }, then: { try $0!.get() })
  }
}

/// Every file below `folder` with its contents.
private func snapshotOfFolder(_ folder: String) throws -> [String: [UInt8]] {
  var result: [String: [UInt8]] = [:]
  for case let relative as String in FileManager.default.enumerator(atPath: folder)?.allObjects ?? [] {
    result[relative] = isDirectory(folder + "/" + relative) ? [] : try fileBytes(folder + "/" + relative)
  }
  return result
}
