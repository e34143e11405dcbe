/// A space's photos in list order, with their selection: what `Space.entries` holds. It
/// reads as an array of `IndexEntry`, but keeps only each photo's id and selection, and
/// where its record is: in the snapshot the space was opened from (decoded when asked for,
/// see `SnapshotBytes`) or decoded already. So opening a big space makes no record, and
/// scoping and sorting read only the keys they need (`id(at:)`, `importedAt(at:)`,
/// `taken(at:)`).
public struct PhotoEntries: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral,
  Equatable, Sendable
{
  /// Where a photo's record is.
  enum Source: Sendable {
    /// The offsets of its `added` entry and of its latest `details` entry in `snapshot`.
    case encoded(added: Int, details: Int?)
    /// Its index in `records`.
    case decoded(Int)
  }

  private var ids: [BlobID] = []
  private var selection: [Bool] = []
  private var sources: [Source] = []
  private var records: [PhotoRecord] = []
  private var snapshot: SnapshotBytes?

  /// Positions stop short of 32 bits (and of `PositionIndex`'s mark of a removed photo): the
  /// tables finding a photo by id (`PositionIndex`) and by content hash (`DuplicateImports`)
  /// hold its position + 1 in half of an 8-byte slot, and trap beyond it, so that a space of
  /// 4 billion photos fails to open rather than lists wrong photos.
  static let positionLimit = Int(UInt32.max) - 1

  public init() {}

  public init<S: Sequence>(_ entries: S) where S.Element == IndexEntry {
    for entry in entries { append(entry) }
  }

  public init(arrayLiteral entries: IndexEntry...) {
    self.init(entries)
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { ids.count }

  public subscript(position: Int) -> IndexEntry {
    get { IndexEntry(record: record(at: position), selected: selection[position]) }
    set {
      selection[position] = newValue.selected
      if newValue.record != record(at: position) { setRecord(newValue.record, at: position) }
    }
  }

  public static func == (lhs: PhotoEntries, rhs: PhotoEntries) -> Bool {
    lhs.count == rhs.count && lhs.elementsEqual(rhs)
  }

  public mutating func append(_ entry: IndexEntry) {
    ids.append(entry.record.id)
    selection.append(entry.selected)
    sources.append(.decoded(records.count))
    records.append(entry.record)
  }

  public mutating func reserveCapacity(_ count: Int) {
    ids.reserveCapacity(count)
    selection.reserveCapacity(count)
    sources.reserveCapacity(count)
  }

  // MARK: Keys, without the record

  /// The id of the photo at `position`.
  public func id(at position: Int) -> BlobID { ids[position] }

  /// Every photo's id, in list order, without decoding a record.
  public var photoIDs: [BlobID] { ids }

  public func isSelected(at position: Int) -> Bool { selection[position] }

  /// The record of the photo at `position`, decoded if it was not.
  public func record(at position: Int) -> PhotoRecord {
    switch sources[position] {
    case .decoded(let index): return records[index]
    case .encoded(let added, let details): return snapshot!.record(added: added, details: details)
    }
  }

  /// The UTF-8 bytes of the name of the photo at `position`, handed to `body` without
  /// decoding its record (a pass over every name, `SpaceCatalog.quickShownNames`).
  func withNameBytes<T>(at position: Int, _ body: (UnsafeRawBufferPointer) -> T) -> T {
    switch sources[position] {
    case .decoded(let index):
      var name = records[index].name
      return name.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    case .encoded(let added, _): return snapshot!.withNameBytes(added: added, body)
    }
  }

  /// When the photo at `position` was imported.
  package func importedAt(at position: Int) -> Timestamp {
    switch sources[position] {
    case .decoded(let index): return records[index].importedAt
    case .encoded(let added, _): return snapshot!.importedAt(added: added)
    }
  }

  /// The keyed content hash of the photo at `position`.
  func hash(at position: Int) -> ContentHash {
    switch sources[position] {
    case .decoded(let index): return records[index].hash
    case .encoded(let added, _): return snapshot!.hash(added: added)
    }
  }

  /// The key of the content hash of the photo at `position` in `DuplicateImports`' table
  /// (see `ContentHash.tableKey`).
  func hashKey(at position: Int) -> UInt64 {
    switch sources[position] {
    case .decoded(let index): return records[index].hash.tableKey
    case .encoded(let added, _): return snapshot!.hashKey(added: added)
    }
  }

  /// When the photo at `position` was taken, if its file says.
  package func taken(at position: Int) -> CaptureTime? {
    switch sources[position] {
    case .decoded(let index): return records[index].taken
    case .encoded(_, let details): return details.flatMap { snapshot!.taken(details: $0) }
    }
  }

  /// How many of the photos are held decoded (the rest are in the snapshot's bytes).
  var decodedCount: Int {
    sources.lazy.filter {
      if case .decoded = $0 { return true }
      return false
    }.count
  }

  // MARK: Changes (for `SpaceState`)

  mutating func setSelected(_ selected: Bool, at position: Int) {
    selection[position] = selected
  }

  /// Holds `record` decoded for the photo at `position`: in the place of the record it had,
  /// when it had one of its own, so that details changed again and again (a journal from
  /// another machine may hold any number) keep one record a photo.
  mutating func setRecord(_ record: PhotoRecord, at position: Int) {
    ids[position] = record.id
    if case .decoded(let index) = sources[position] {
      records[index] = record
      return
    }
    sources[position] = .decoded(records.count)
    records.append(record)
  }

  /// How many records are held decoded, for tests of memory.
  var heldRecords: Int { records.count }

  /// Whether photos of `snapshot` can be held undecoded: a list holds those of one
  /// snapshot only (the one a space is opened from; merged copies may have several).
  func canHoldEncoded(of snapshot: SnapshotBytes) -> Bool {
    self.snapshot == nil || self.snapshot === snapshot
  }

  /// Appends the photo of the `added` entry at `added` in `snapshot`, undecoded.
  mutating func appendEncoded(_ id: BlobID, added: Int, in snapshot: SnapshotBytes, selected: Bool) {
    precondition(canHoldEncoded(of: snapshot))
    if self.snapshot == nil { self.snapshot = snapshot }
    ids.append(id)
    selection.append(selected)
    sources.append(.encoded(added: added, details: nil))
  }

  /// The `added` entry's offset when the photo at `position` is held undecoded, in
  /// `snapshot`, and has no details yet. Details from another snapshot are not its: their
  /// offset means nothing in the bytes this photo is read from.
  func encodedWithoutDetails(at position: Int, in snapshot: SnapshotBytes) -> Int? {
    guard self.snapshot === snapshot, case .encoded(let added, nil) = sources[position] else { return nil }
    return added
  }

  /// Gives the undecoded photo at `position` the details of the `details` entry at
  /// `details` in its snapshot.
  mutating func setEncodedDetails(_ details: Int, at position: Int) {
    guard case .encoded(let added, _) = sources[position] else {
      preconditionFailure("the photo is decoded")
    }
    sources[position] = .encoded(added: added, details: details)
  }

  /// The photos at `positions`, in that order. Each decoded record is copied into a slot of
  /// its own, so that no two photos share one (`setRecord` changes a record in place) and
  /// the records of photos left out are not kept.
  func picking(_ positions: [Int]) -> PhotoEntries {
    var picked = PhotoEntries()
    picked.snapshot = snapshot
    picked.ids = positions.map { ids[$0] }
    picked.selection = positions.map { selection[$0] }
    var records: [PhotoRecord] = []
    picked.sources = positions.map { position in
      guard case .decoded(let index) = sources[position] else { return sources[position] }
      records.append(self.records[index])
      return .decoded(records.count - 1)
    }
    picked.records = records
    return picked
  }
}
