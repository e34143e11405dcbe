import Foundation

@testable import VaultCore

/// A writer that stays: a journal segment of a space, written from the test's own process
/// and appended to over time, as a long command (an import of many photos) appends to its
/// own segment while a sync engine copies the part written so far. Each record is one
/// selection change, written through the same `JournalSegmentWriter` as the binary's.
final class LongRunningSegment {
  private let writer: JournalSegmentWriter
  /// The segment's path in the space's `Journal/`.
  let path: String

  init(vault: String, password: String) throws {
    let space = try Vault.open(at: vault).unlock(
      password: try Password(utf8: Array(password.utf8)), access: .read)
    writer = try JournalSegmentWriter(directory: space.journalDirectory, key: space.master.journalKey())
    path = writer.path
  }

  /// The segment's file name.
  var name: String { URL(fileURLWithPath: path).lastPathComponent }

  /// Appends a selection change of the photo `id`, stamped now.
  func select(_ id: String, _ selected: Bool) throws {
    guard let photo = BlobID(hex: id) else { throw VaultError.invalidArgument("not a photo id: \(id)") }
    try writer.append([.selection(photo, selected: selected, stamp: Timestamp.now().nanosecondsSince1970)])
  }
}
