/// The shown names of a few files (a page of `list`, the photos the viewer draws), found
/// without resolving every file's (`ShownNames`), which in a space of 100,000 photos costs
/// tens of milliseconds, when a pass over the names alone proves what resolving would give.
extension SpaceCatalog {
  /// The names the files of `records` show under; more when that is cheaper (the names of
  /// every file, `shownNames()`, once they are resolved: the viewer asks at every frame).
  public func shownNames(of records: [PhotoRecord]) -> [BlobID: String] {
    if let table = tables.madeShownNames { return table.names }
    return quickShownNames(of: records) ?? shownNames()
  }

  /// At most this many files are named by `quickShownNames`: past them, a pass that
  /// resolves every name costs little more.
  static let quickNamesLimit = 512

  /// The names of `records` when each is proven to show its candidate: a recorded name
  /// (made safe) that no other file records; or, for a file that records none, its own
  /// name made safe, when it is no numbered form (` (`), no other file records it and no
  /// other shown file has it as its own. `ShownNames.resolve` then gives each its
  /// candidate: recorded names go first, in list order, and a file without one takes the
  /// first free of its own name's numbered forms. Nil when one is not proven (the names of
  /// every file are then resolved).
  func quickShownNames(of records: [PhotoRecord]) -> [BlobID: String]? {
    guard records.count <= Self.quickNamesLimit else { return nil }
    let hidden = tables.imports.keptImport
    let recorded = tables.recordedNames
    var claims = NameClaims()
    var names: [BlobID: String] = [:]
    for record in records {
      guard hidden[record.id] == nil else { return nil }
      let naming = recorded[record.id]
      let name = PhotoExporter.safeName(naming?.name ?? record.name)
      if naming == nil && name.contains(" (") { return nil }
      guard claims.add(name, by: record.id, recorded: naming != nil) else { return nil }
      names[record.id] = name
    }
    // The recorded names in the order they are stored, not looked up file by file: 100,000
    // lookups missed the cache at each (a fifth of opening a big space). A name claimed
    // besides by a file that does not show (a hidden import) is not proven either.
    if recorded.contains(where: { id, naming in
      claims.isClaimed(PhotoExporter.safeName(naming.name), besides: id)
    }) {
      return nil
    }
    guard claims.hasUnrecorded else { return names }
    for (position, id) in entries.photoIDs.enumerated() {
      if !hidden.isEmpty, hidden[id] != nil { continue }
      if entries.withNameBytes(at: position, { claims.ownNameClashes($0, besides: id) }) { return nil }
    }
    return names
  }
}

/// The names `quickShownNames` must find no other file claiming: each file's candidate, and
/// those of files without a recorded name by their bytes too (compared with every file's
/// own name, read undecoded).
struct NameClaims {
  private var claimed: [String: BlobID] = [:]
  /// The candidates of files without a recorded name, by the hash of their bytes.
  private var unrecorded: [Int: [(bytes: [UInt8], id: BlobID)]] = [:]

  var hasUnrecorded: Bool { !unrecorded.isEmpty }

  /// False when another file claims `name` already.
  mutating func add(_ name: String, by id: BlobID, recorded: Bool) -> Bool {
    guard claimed.updateValue(id, forKey: name) == nil else { return false }
    if !recorded {
      let bytes = Array(name.utf8)
      bytes.withUnsafeBytes { unrecorded[Self.hash($0), default: []].append((bytes, id)) }
    }
    return true
  }

  /// Whether a file other than `id` claims `name`. A few names are compared with it one by
  /// one, which costs less than hashing it (a pass over every recorded name asks this of
  /// each, for a page of one or a few files).
  func isClaimed(_ name: String, besides id: BlobID) -> Bool {
    if claimed.count <= Self.comparedOneByOne {
      return claimed.contains { $0.key == name && $0.value != id }
    }
    return claimed[name].map { $0 != id } ?? false
  }

  /// At most this many claimed names are compared one by one.
  private static let comparedOneByOne = 8

  /// Whether `own`, the bytes of the own name of the file `id`, made safe, is the candidate
  /// of another file without a recorded name.
  func ownNameClashes(_ own: UnsafeRawBufferPointer, besides id: BlobID) -> Bool {
    guard PathComponent.isPlainASCII(own) else {
      var name = PhotoExporter.safeName(String(decoding: own, as: UTF8.self))
      return name.withUTF8 { clashes(UnsafeRawBufferPointer($0), besides: id) }
    }
    // A plain name is its own safe form.
    return clashes(own, besides: id)
  }

  private func clashes(_ bytes: UnsafeRawBufferPointer, besides id: BlobID) -> Bool {
    guard let candidates = unrecorded[Self.hash(bytes)] else { return false }
    return candidates.contains { $0.id != id && $0.bytes.elementsEqual(bytes) }
  }

  private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
    var hasher = Hasher()
    hasher.combine(bytes: bytes)
    return hasher.finalize()
  }
}
