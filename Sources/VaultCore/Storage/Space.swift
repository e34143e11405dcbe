import Foundation

/// An unlocked space: its master key, its index, and the folder of its blobs. All reads and
/// writes of photos go through here.
public final class Space {
  /// Whether the space is opened to read (shared lock) or to change (exclusive lock).
  public enum Access { case read, write }

  static let keyFile = "key"
  static let indexFile = "index"
  static let photoFolder = "Photo"
  static let thumbFolder = "Thumb"
  /// The index is read whole; this bounds what a damaged or forged one can make us allocate.
  static let indexSizeLimit = 512 << 20

  public let directory: String
  let master: MasterKey
  let access: Access
  private let lock: DirectoryLock
  /// The photos in import order, with their selection (empty when the index is damaged).
  public private(set) var entries: [IndexEntry]
  /// Why the index could not be read, if it could not: the space still opens, so that
  /// `verify --repair` can rebuild the index from the originals.
  public private(set) var indexDamage: VaultError?

  init(directory: String, wrappingKey: SecureBytes, access: Access) throws {
    self.directory = directory
    self.access = access
    lock = try DirectoryLock(path: directory, mode: access == .write ? .exclusive : .shared)
    let keyPath = directory + "/" + Self.keyFile
    guard let master = KeyWrap.unwrap(try readWholeFile(keyPath, limit: 4096), with: wrappingKey) else {
      throw VaultError.damagedKey(path: keyPath)
    }
    self.master = master
    do {
      entries = try Self.readIndex(in: directory, master: master).photos
    } catch let error as VaultError {
      guard case .damagedIndex = error else { throw error }
      entries = []
      indexDamage = error
    }
  }

  /// Throws the index's damage, if any: every command but verify needs a sound index.
  public func requireIndex() throws {
    if let indexDamage { throw indexDamage }
  }

  var photoDirectory: String { directory + "/" + Self.photoFolder }
  var thumbDirectory: String { directory + "/" + Self.thumbFolder }
  var indexPath: String { directory + "/" + Self.indexFile }

  // Paths are built only from a `BlobID`, never from a string read from a file.
  func photoPath(_ id: BlobID) -> String { photoDirectory + "/" + id.hex }
  func thumbPath(_ id: BlobID) -> String { thumbDirectory + "/" + id.hex }

  /// The photos as models for a `PhotoBrowser`.
  public func models() -> [PhotoModel] {
    entries.map { entry in
      PhotoModel(
        photoURL: URL(fileURLWithPath: photoPath(entry.record.id)),
        thumbURL: URL(fileURLWithPath: thumbPath(entry.record.id)), isSelected: entry.selected,
        record: entry.record)
    }
  }

  // MARK: Index

  static func readIndex(in directory: String, master: MasterKey) throws -> SpaceIndex {
    let path = directory + "/" + indexFile
    let key = master.blobKey(kind: .index, id: .index)
    var bytes: [UInt8]
    do {
      let reader = try BlobReader(path: path, kind: .index, key: key, what: "the index")
      bytes = try reader.readToEnd(limit: indexSizeLimit)
    } catch VaultError.damagedBlob(_, let reason) {
      throw VaultError.damagedIndex(path: path, reason: reason)
    }
    defer { bytes.wipe() }
    do {
      // Decoded in place, without a copy that would outlive the wipe.
      let index = try bytes.withUnsafeMutableBytes { buffer in
        try JSONDecoder().decode(
          SpaceIndex.self,
          from: Data(bytesNoCopy: buffer.baseAddress!, count: buffer.count, deallocator: .none))
      }
      guard index.version == SpaceIndex.currentVersion else {
        throw VaultError.damagedIndex(path: path, reason: "unsupported index version \(index.version)")
      }
      return index
    } catch let error as VaultError {
      throw error
    } catch DecodingError.dataCorrupted(let context)
      where context.debugDescription == BlobID.malformedDescription
    {
      throw VaultError.damagedIndex(path: path, reason: Self.describeMalformedID(at: context.codingPath))
    } catch {
      throw VaultError.damagedIndex(path: path, reason: "its contents do not parse")
    }
  }

  /// "entry 2 has a malformed photo id", from where in the index the decoder met it.
  private static func describeMalformedID(at codingPath: [CodingKey]) -> String {
    guard let position = codingPath.lazy.compactMap(\.intValue).first else {
      return BlobID.malformedDescription
    }
    return "entry \(position + 1) has a \(BlobID.malformedDescription)"
  }

  static func writeIndex(_ index: SpaceIndex, in directory: String, master: MasterKey) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var plaintext = try encoder.encode(index)
    defer { plaintext.wipe() }
    let file = try TemporaryFile(in: directory)
    let writer = try BlobWriter(kind: .index, key: master.blobKey(kind: .index, id: .index), output: file)
    try plaintext.withUnsafeBytes { try writer.write($0) }
    try writer.finish()
    try file.replace(directory + "/" + indexFile)
  }

  /// Replaces the index with `entries`, durably, then adopts them. Refused while the
  /// index is damaged, unless `rebuilding` (which only `verify --repair` does).
  func saveEntries(_ newEntries: [IndexEntry], rebuilding: Bool = false) throws {
    precondition(access == .write, "the space was opened read-only")
    if !rebuilding { try requireIndex() }
    try Self.writeIndex(SpaceIndex(photos: newEntries), in: directory, master: master)
    entries = newEntries
    indexDamage = nil
  }

  // MARK: Selection

  /// Sets the selection of the photos at `positions` (0-based) to `selected`.
  public func setSelection(_ positions: [Int], to selected: Bool) throws {
    var updated = entries
    for position in positions { updated[position].selected = selected }
    try saveEntries(updated)
  }

  /// Selects every photo, none, or inverts the selection.
  public func changeAllSelections(_ change: (Bool) -> Bool) throws {
    try saveEntries(entries.map { IndexEntry(record: $0.record, selected: change($0.selected)) })
  }

  // MARK: Delete

  /// Removes photos, originals and thumbnails. The index is written first, so a crash
  /// leaves at worst orphan blobs, never an index entry without its photo; thumbnails go
  /// before originals, so that an orphan original without a thumbnail is known to be a
  /// delete cut short (the next writer removes it) and not an import cut short.
  public func deletePhotos(ids: Set<BlobID>) throws {
    let remaining = entries.filter { !ids.contains($0.record.id) }
    try saveEntries(remaining)
    for id in ids { unlink(thumbPath(id)) }
    try syncDirectory(thumbDirectory)
    for id in ids { unlink(photoPath(id)) }
    try syncDirectory(photoDirectory)
  }

  // MARK: Blobs

  /// Describes a photo in error messages.
  func describe(_ record: PhotoRecord) -> String {
    "photo '\(record.name)' (\(Self.photoFolder)/\(record.id))"
  }

  /// The decrypted thumbnail of a photo (a JPEG); the caller wipes it.
  public func thumbnail(of record: PhotoRecord) throws -> [UInt8] {
    let reader = try BlobReader(
      path: thumbPath(record.id), kind: .thumbnail, key: master.blobKey(kind: .thumbnail, id: record.id),
      what: "thumbnail of photo '\(record.name)' (\(Self.thumbFolder)/\(record.id))")
    return try ThumbnailBlob.read(from: reader)
  }

  /// Encrypts a thumbnail into a synced temporary file in `Thumb/`, to be moved into place.
  func sealThumbnail(_ jpeg: [UInt8], id: BlobID) throws -> TemporaryFile {
    let file = try TemporaryFile(in: thumbDirectory)
    let writer = try BlobWriter(kind: .thumbnail, key: master.blobKey(kind: .thumbnail, id: id), output: file)
    try ThumbnailBlob.write(jpeg, to: writer)
    try writer.finish()
    try file.sync()
    return file
  }

  /// Opens a photo's original for reading: its record is checked against `record`.
  func openOriginal(_ record: PhotoRecord) throws -> OriginalBlobReader {
    let reader = try OriginalBlobReader(
      path: photoPath(record.id), id: record.id, master: master, what: describe(record))
    guard reader.record.id == record.id, reader.record.contentHash == record.contentHash,
      reader.record.bytes == record.bytes
    else {
      throw VaultError.damagedBlob(what: describe(record), reason: "its record does not match the index")
    }
    return reader
  }
}
