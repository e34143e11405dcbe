/// Which stills and MOVs of a space are one Live Photo. A pair is not stored as a pair: each
/// half carries a Live Photo identifier in the journal (`JournalEntry.liveIdentifier`), and a
/// listed still (JPEG or HEIC) and a listed MOV with the same identifier are one item. So a
/// MOV that comes in after its still (a later `add`, another upload) pairs by itself, merged
/// copies agree, and deleting either half leaves the other a photo or video of its own.
/// When several stills or MOVs share an identifier, the first MOV in list order pairs, with
/// the first still in list order named as it (`IMG_0001.JPG` for `IMG_0001.MOV`), else the
/// first still: a still whose maker note claims a movie's identifier cannot keep the movie
/// from its own still added later, and merged copies still agree (names and list order are
/// the same on every copy).
struct LivePairs: Sendable {
  /// The MOV of each still that has one.
  private(set) var motionOfStill: [BlobID: BlobID] = [:]
  /// The still of each MOV that is one's motion: these are listed under their still.
  private(set) var stillOfMotion: [BlobID: BlobID] = [:]

  var isEmpty: Bool { motionOfStill.isEmpty }

  init() {}

  /// The pairs among `identifiers`' photos; `photo` gives a listed photo's format and
  /// place in the list (nil for one not listed), and `listedImport` the import a photo
  /// imported on several copies is listed as (see `DuplicateImports`): a hidden half counts
  /// as that one, so that a still imported on one copy pairs with the MOV another copy
  /// imported with its own import of the still.
  init(
    identifiers: [BlobID: String], photo: (BlobID) -> (format: ImageFormat, order: Int64, name: String)?,
    listedImport: (BlobID) -> BlobID = { $0 }
  ) {
    var halves: [String: (stills: [Half], motion: Half?)] = [:]
    for (hidden, identifier) in identifiers {
      let id = listedImport(hidden)
      guard let (format, order, name) = photo(id), let side = LiveHalf(format) else { continue }
      let half = Half(order: order, id: id, stem: LivePairing.stem(of: name))
      var group = halves[identifier] ?? ([], nil)
      switch side {
      case .still: group.stills.append(half)
      case .motion: if group.motion.map({ half < $0 }) ?? true { group.motion = half }
      }
      halves[identifier] = group
    }
    // By identifier, the first pair of a half wins: with imports counted as the listed one,
    // a half can be in two groups, and the pairs must not depend on the dictionary's order.
    for identifier in halves.keys.sorted() {
      guard let group = halves[identifier], let motion = group.motion,
        let still = Self.still(of: motion, among: group.stills),
        motionOfStill[still.id] == nil, stillOfMotion[motion.id] == nil
      else { continue }
      motionOfStill[still.id] = motion.id
      stillOfMotion[motion.id] = still.id
    }
  }

  /// The still `motion` pairs with, of those carrying its identifier: the first named as it,
  /// else the first.
  private static func still(of motion: Half, among stills: [Half]) -> Half? {
    stills.filter { $0.stem == motion.stem }.min() ?? stills.min()
  }

  private struct Half: Comparable {
    let order: Int64
    let id: BlobID
    /// Its name's `LivePairing.stem`.
    let stem: String
    static func < (a: Half, b: Half) -> Bool { (a.order, a.id) < (b.order, b.id) }
  }
}

/// Which half of a Live Photo a file of a format can be: a JPEG or HEIC still, or a MOV.
public enum LiveHalf: String, Equatable, Sendable, CaseIterable {
  case still
  case motion

  init?(_ format: ImageFormat) {
    switch format {
    case .jpeg, .heic: self = .still
    case .mov: self = .motion
    default: return nil
    }
  }
}
