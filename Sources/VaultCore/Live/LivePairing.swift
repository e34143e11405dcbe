import Foundation

/// Finds Live Photos among the photos stored in one session (one `add`, one `serve`), as
/// each is committed, and says what the journal must record for them
/// (`JournalEntry.liveIdentifier`):
/// - a still or MOV with Apple's content identifier records it, so that it pairs with the
///   other half carrying the same, whenever that comes in (this session or a later one); a
///   MOV's identifier counts only when the MOV is a Live Photo's movie (see
///   `AppleContentIdentifier.read`), so a video that merely carries one pairs by name alone;
/// - a still and a MOV of the same name stem from the same place (folder, or upload
///   session), names compared without case, pair when at most one of them carries an
///   identifier: both get that one, or a new one vault makes. Two different identifiers
///   mean two different moments: they stay apart.
/// A half whose other half failed to import is stored alone.
struct LivePairing {
  /// The halves of this session not paired by name yet, by place, stem and side.
  private var waiting: [Key: (id: BlobID, identifier: String?)] = [:]

  private struct Key: Hashable {
    let place: String
    let stem: String
    let side: LiveHalf
  }

  init() {}

  /// The entries to record with `record`, a photo stored from `name` (a file name) in
  /// `place` (its folder, or the session), carrying `identifier` (Apple's, if any).
  mutating func entries(for record: PhotoRecord, identifier: String?, place: String) -> [JournalEntry] {
    guard let side = LiveHalf(record.format) else { return [] }
    var result: [JournalEntry] = []
    if let identifier { result.append(.liveIdentifier(record.id, identifier: identifier)) }
    let stem = Self.stem(of: record.name)
    let other = Key(place: place, stem: stem, side: side == .still ? .motion : .still)
    guard let mate = waiting[other] else {
      waiting[Key(place: place, stem: stem, side: side)] = (record.id, identifier)
      return result
    }
    switch (identifier, mate.identifier) {
    case (let mine?, nil): result.append(.liveIdentifier(mate.id, identifier: mine))
    case (nil, let theirs?): result.append(.liveIdentifier(record.id, identifier: theirs))
    case (nil, nil):
      let made = Self.madeIdentifier()
      result.append(.liveIdentifier(mate.id, identifier: made))
      result.append(.liveIdentifier(record.id, identifier: made))
    case (_?, _?):
      // Paired already if they are the same; apart if not.
      break
    }
    waiting[other] = nil
    return result
  }

  /// A file name without its extension, compared without case: `IMG_0001.JPG` and
  /// `img_0001.mov` have one stem.
  static func stem(of name: String) -> String {
    ((name as NSString).deletingPathExtension).lowercased()
  }

  /// An identifier for a pair found by name: "vault-" and 32 random hex digits, never one
  /// Apple's (upper-case UUIDs) could equal.
  static func madeIdentifier() -> String {
    "vault-" + BlobID.random().hex
  }
}
