import Foundation

/// One thing `vault verify` found in a space.
public enum VerifyFinding: Equatable, Sendable, CustomStringConvertible {
  /// The photo's original and thumbnail authenticate and match the index.
  case intact(number: Int, name: String)
  /// An original that does not authenticate, or does not match its record or the index.
  /// `number` is nil for an original the index does not list.
  case damagedOriginal(number: Int?, name: String?, id: String, reason: String)
  /// An offloaded original that could not be checked: its remote could not be asked
  /// (`reason` names it). Not damage, but not known intact either.
  case uncheckedOriginal(number: Int?, name: String?, id: String, reason: String)
  /// The index lists a photo whose original file is gone.
  case missingOriginal(number: Int, name: String, id: String)
  case damagedThumbnail(number: Int, name: String, id: String, reason: String)
  case missingThumbnail(number: Int, name: String, id: String)
  /// The index lists the same photo twice.
  case listedTwice(number: Int, name: String, id: String)
  /// An intact original the index does not list (an import cut short, a lost index).
  case orphanOriginal(id: String, name: String)
  /// A thumbnail whose original is gone.
  case orphanThumbnail(id: String)
  /// A file left by an interrupted write.
  case temporaryFile(path: String)
  /// A journal segment that ends in an incomplete record: a write cut short, a copy a sync
  /// engine has not finished, bit rot, or someone's change. Its whole records count.
  case tornJournalSegment(path: String)
  /// A blob of a photo the journal says was deleted: a delete cut short, or a file a sync
  /// engine brought back from another copy.
  case deletedPhotoLeftover(path: String)
  /// A file vault did not write.
  case unexpectedFile(path: String)
  case damagedIndex(reason: String)

  /// Whether `verify --repair` can fix it: it never deletes a damaged original (only a
  /// backup or the user can settle that) and leaves files it did not write alone.
  /// The name a finding gives a photo of Recently Deleted, whose number is its number in
  /// `vault trash`, not in the list.
  static func trashNamed(_ name: String) -> String { name + trashSuffix }
  public static let trashSuffix = " (in Recently Deleted)"

  public var isRepairable: Bool {
    switch self {
    case .intact, .damagedOriginal, .uncheckedOriginal, .unexpectedFile: return false
    default: return true
    }
  }

  /// A photo's original or thumbnail missing or damaged: what a backup brings back.
  public var isLostBlob: Bool {
    switch self {
    case .damagedOriginal(_?, _, _, _), .missingOriginal, .damagedThumbnail, .missingThumbnail: return true
    default: return false
    }
  }

  /// An offloaded original whose remote could not be asked.
  public var isUnchecked: Bool {
    if case .uncheckedOriginal = self { return true }
    return false
  }

  public var isProblem: Bool {
    switch self {
    // Encrypted files of a deleted photo, which a sync brought back: harmless, and the next
    // write removes them.
    case .intact, .deletedPhotoLeftover: return false
    default: return true
    }
  }

  public var description: String {
    switch self {
    case .intact(let number, let name):
      return "ok: \(number) \(name)"
    case .damagedOriginal(let number?, let name, let id, let reason):
      return "damaged original: \(number) \(name ?? "?") (Photo/\(id)): \(reason)"
    case .damagedOriginal(nil, _, let id, let reason):
      return "damaged original not in the index: Photo/\(id): \(reason)"
    case .uncheckedOriginal(let number, let name, let id, let reason):
      return "not checked: \(number.map { "\($0) \(name ?? "?") (" } ?? "(not in the index, ")offloaded "
        + "Photo/\(id)): \(reason)"
    case .missingOriginal(let number, let name, let id):
      return "missing original: \(number) \(name) (Photo/\(id) is gone)"
    case .damagedThumbnail(let number, let name, let id, let reason):
      return "damaged thumbnail: \(number) \(name) (Thumb/\(id)): \(reason)"
    case .missingThumbnail(let number, let name, let id):
      return "missing thumbnail: \(number) \(name) (Thumb/\(id))"
    case .listedTwice(let number, let name, let id):
      return "listed twice: \(number) \(name) (Photo/\(id))"
    case .orphanOriginal(let id, let name):
      return "orphan original: Photo/\(id) ('\(name)', intact, not in the index)"
    case .orphanThumbnail(let id):
      return "orphan thumbnail: Thumb/\(id) (its original is gone)"
    case .temporaryFile(let path):
      return "leftover temporary file: \(path)"
    case .deletedPhotoLeftover(let path):
      return "leftover of a deleted photo: \(path)"
    case .tornJournalSegment(let path):
      return "journal segment ends in an incomplete record: \(path) (a write cut short, or a copy "
        + "still being synced; its whole records count)"
    case .unexpectedFile(let path):
      return "unexpected file: \(path) (not written by vault; left alone)"
    case .damagedIndex(let reason):
      return "damaged index: \(reason)"
    }
  }
}
