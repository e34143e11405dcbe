import Foundation

/// A snapshot's decrypted entries, kept while the photos it lists are: a photo's record is
/// decoded from them only when a command asks for it, so that opening a big space makes
/// no record at all. Its bytes never change once decrypted (so it is shared freely, and read
/// through one pointer without an array's checks at every field); while it is read, only the
/// reading thread holds it and sets `count`. Wiped when released.
///
/// `@unchecked`: it holds a raw pointer to its mapping, which Swift cannot check, and
/// `count` grows while it is read. It is immutable once `read` returns it, which is when a
/// catalog (`SpaceCatalog`, through `PhotoEntries`) can hand it to another thread.
package final class SnapshotBytes: @unchecked Sendable {
  /// The memory mapped for it (its length is a page or more).
  private let mapping: UnsafeMutableRawBufferPointer
  /// The bytes decrypted so far (all of them once read): what `withBytes` hands out. Set by
  /// the thread that reads the entries, never by the one that decrypts.
  private(set) var count = 0
  /// The bytes written into `mapping`, to wipe.
  private var written = 0

  private init(mapping: UnsafeMutableRawBufferPointer) {
    self.mapping = mapping
  }

  /// The rest of `reader`'s plaintext, decrypted straight into memory of a new object's own
  /// (no copy to wipe); more than `limit` bytes is damage. Its entries are read as they
  /// come (see `SnapshotScanner`) and handed to `consume` in order, with the object whose
  /// `count` bytes are there; from `alongsideFrom` bytes of file on, decrypting and reading
  /// go on on another thread meanwhile (see `SnapshotDecryption`), smaller snapshots are
  /// decrypted whole first. Throws what decrypting or reading threw, once nothing writes the
  /// memory any more.
  package static func read(
    from reader: BlobReader, limit: Int, alongsideFrom parallelSize: Int = .max,
    consume: (SnapshotBytes, [SnapshotItem]) -> Void
  ) throws -> SnapshotBytes {
    // The file's size bounds the plaintext: address space only, its pages are made as the
    // chunks authenticate (a junk file of 1 GiB would otherwise cost 1 GiB of memory).
    let fileBytes = reader.remainingFileBytes
    let snapshot = SnapshotBytes(mapping: try map(min(fileBytes, limit)))
    if fileBytes >= parallelSize {
      try snapshot.readAlongside(reader, consume: consume)
    } else {
      snapshot.count = try reader.readRemaining(into: snapshot.mapping) { count in
        Self.makePages(of: snapshot.mapping, from: snapshot.written, to: count)
        snapshot.written = count
      }
      var scanner = SnapshotScanner()
      consume(snapshot, try snapshot.withBytes { try scanner.scan($0, isFinal: true) })
    }
    return snapshot
  }

  /// Decrypts and reads on another thread, handing what was read to `consume` on this one,
  /// which makes the pages the decrypting thread writes next meanwhile: made there, they
  /// were a third of its time (perf: `clear_page_erms` under `madvise`), while this thread
  /// mostly waited for it.
  private func readAlongside(_ reader: BlobReader, consume: (SnapshotBytes, [SnapshotItem]) -> Void)
    throws
  {
    nonisolated(unsafe) let mapping = mapping
    let decryption = SnapshotDecryption(reading: reader, into: mapping)
    var made = Self.makePages(of: mapping, ahead: 0, from: 0)
    do {
      while true {
        let (decrypted, read, isFinal) = try decryption.take()
        made = Self.makePages(of: mapping, ahead: decrypted, from: made)
        (count, written) = (decrypted, decrypted)
        for items in read { consume(self, items) }
        if isFinal { break }
      }
      decryption.finish()
    } catch {
      written = decryption.abandon()
      throw error
    }
  }

  /// The plaintext `bytes` as a read would hold it, whole (for tests and the fuzz target).
  package init(_ bytes: [UInt8]) throws {
    mapping = try Self.map(bytes.count)
    mapping.copyBytes(from: bytes)
    count = bytes.count
    written = bytes.count
  }

  deinit {
    // Pages past what was written were never made.
    Sodium.zero(mapping.baseAddress, count: written)
    munmap(mapping.baseAddress, mapping.count)
  }

  /// Fresh address space for `count` bytes (no page is made yet).
  private static func map(_ count: Int) throws -> UnsafeMutableRawBufferPointer {
    let length = max(1, count)
    guard let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      address != MAP_FAILED
    else { throw VaultError.io(path: "the snapshot", reason: String(cString: strerror(errno))) }
    // In huge pages where the kernel has them: a 16 MB snapshot is made, and freed at the
    // end of the command, as 8 pages rather than 4,000.
    if length >= hugePageSize { _ = madvise(address, length, MADV_HUGEPAGE) }
    return UnsafeMutableRawBufferPointer(start: address, count: length)
  }

  /// Makes the pages from `made` (a step's start) to the end of the step after the one
  /// `decrypted` is in, those the bytes that authenticated so far are followed by: made
  /// ahead of the thread that writes them, but never more than a step past what
  /// authenticated. Returns where the pages made end.
  private static func makePages(
    of mapping: UnsafeMutableRawBufferPointer, ahead decrypted: Int, from made: Int
  )
    -> Int
  {
    var made = made
    while made < min(mapping.count, (decrypted / populatedStep + 2) * populatedStep) {
      _ = madvise(mapping.baseAddress! + made, min(populatedStep, mapping.count - made), populateWrite)
      made += populatedStep
    }
    return made
  }

  /// MADV_POPULATE_WRITE (Linux 5.14), by its number; an older kernel refuses it
  /// and the pages fault as they are written.
  private static let populateWrite: Int32 = 23

  /// The size of a huge page (x86-64, arm64 with 4 KiB pages).
  private static let hugePageSize = 2 << 20

  /// Pages are made a step at a time as the plaintext grows, each step once the bytes before
  /// it authenticated: a 13 MB snapshot faulted its 3,300 pages in one at a time.
  static let populatedStep = 1 << 20

  /// After the bytes from `written` to `count` were written: when `count` entered a new
  /// step (or at the first chunk), that step's pages are made at once for the chunks to come.
  private static func makePages(of mapping: UnsafeMutableRawBufferPointer, from written: Int, to count: Int) {
    let step = populatedStep
    guard written == 0 || written / step != count / step else { return }
    let start = count / step * step
    guard start < mapping.count else { return }
    _ = madvise(mapping.baseAddress! + start, min(step, mapping.count - start), populateWrite)
  }

  /// The most bytes it can hold: its file's size (or the size limit).
  var capacity: Int { mapping.count }

  func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try body(UnsafeRawBufferPointer(rebasing: mapping[0..<count]))
  }

  /// The record of the `added` entry whose type byte is at `added`, with the details of
  /// the `details` entry at `details` (none without one). Both were checked when the
  /// snapshot was read.
  func record(added: Int, details: Int?) -> PhotoRecord {
    withBytes { buffer in
      var input = ByteReader(buffer)
      input.skip(added + 1)
      guard let record = JournalEntry.AddedFields(reading: &input)?.record else {
        preconditionFailure("a snapshot's photo record was checked when it was read")
      }
      guard let details else { return record }
      return self.details(at: details).applied(to: record)
    }
  }

  /// The details of the `details` entry whose type byte is at `offset`.
  func details(at offset: Int) -> PhotoDetails {
    withBytes { buffer in
      var input = ByteReader(buffer)
      input.skip(offset + 1)
      guard let details = JournalEntry.DetailsFields(reading: &input)?.details else {
        preconditionFailure("a snapshot's details were checked when it was read")
      }
      return details
    }
  }

  /// The import time of the `added` entry at `added`, read alone (for sorting).
  func importedAt(added: Int) -> Timestamp {
    let start = added + Self.importedAtOffset
    return Timestamp(
      seconds: Int64(bigEndian: mapping.loadUnaligned(fromByteOffset: start, as: Int64.self)),
      nanoseconds: Int32(
        truncatingIfNeeded: UInt32(
          bigEndian: mapping.loadUnaligned(fromByteOffset: start + 8, as: UInt32.self))))
  }

  /// The keyed content hash of the `added` entry at `added`, read alone (to find the
  /// imports of one photo, see `DuplicateImports`): it follows the type, id and order.
  func hash(added: Int) -> ContentHash {
    withBytes { buffer in
      let start = added + Self.hashOffset
      return ContentHash(bytes: UnsafeRawBufferPointer(rebasing: buffer[start..<start + ContentHash.length]))
    }
  }

  /// That hash's key in `DuplicateImports`' table (`ContentHash.tableKey`), read from its
  /// four words without making the hash.
  func hashKey(added: Int) -> UInt64 {
    let start = added + Self.hashOffset
    func word(_ index: Int) -> UInt64 {
      UInt64(bigEndian: mapping.loadUnaligned(fromByteOffset: start + index * 8, as: UInt64.self))
    }
    return ContentHash.tableKey(word(0), word(1), word(2), word(3))
  }

  /// Where an `added` entry's content hash starts: after its type, id and order.
  static let hashOffset = 1 + BlobID.length + 8

  /// When the photo was taken, read alone from the `details` entry at `offset` (for
  /// sorting).
  func taken(details offset: Int) -> CaptureTime? {
    // The flags, seconds, nanoseconds and UTC offset follow the type, id and stamp.
    let start = offset + 1 + BlobID.length + 8
    let flags = mapping[start]
    guard flags & JournalEntry.DetailsFlag.taken != 0 else { return nil }
    let seconds = Int64(bigEndian: mapping.loadUnaligned(fromByteOffset: start + 1, as: Int64.self))
    let nanoseconds = UInt32(bigEndian: mapping.loadUnaligned(fromByteOffset: start + 9, as: UInt32.self))
    let utcOffset = UInt16(bigEndian: mapping.loadUnaligned(fromByteOffset: start + 13, as: UInt16.self))
    return CaptureTime(
      localSeconds: seconds, nanoseconds: Int32(truncatingIfNeeded: nanoseconds),
      utcOffsetMinutes: flags & JournalEntry.DetailsFlag.utcOffset != 0 ? Int16(bitPattern: utcOffset) : nil)
  }

  /// Where an `added` entry's import time starts: after its type, id, order, hash, size,
  /// format, width, height, orientation and modification time (docs/FORMAT.md).
  static let importedAtOffset = 1 + 16 + 8 + 32 + 8 + 1 + 4 + 4 + 1 + 8 + 4
}

/// An entry of a snapshot as it is read: photos and their details are checked and located,
/// not decoded (see `SnapshotBytes`); anything else is decoded.
package enum SnapshotItem {
  case added(BlobID, order: Int64, at: Int)
  case details(BlobID, stamp: Int64, at: Int)
  /// A file's name: as many as there are photos in a space's snapshot, so read without the
  /// boxed entry of `other` (an allocation and a free each, a tenth of a big space's open).
  case shownName(BlobID, name: String, stamp: Int64)
  indirect case other(JournalEntry)

  /// The item of type `type` whose type byte is at `offset`, read as `JournalEntry.scan`
  /// reads entries, with the same errors.
  static func read(
    _ type: JournalEntry.TypeCode, at offset: Int, from input: inout ByteReader, latestStamp: Int64
  )
    throws(JournalEntry.Malformed) -> SnapshotItem
  {
    switch type {
    case .added:
      guard let fields = JournalEntry.AddedFields(reading: &input), fields.isValid else {
        throw JournalEntry.Malformed("is a malformed photo record")
      }
      return .added(fields.id, order: fields.order, at: offset)
    case .details:
      guard let fields = JournalEntry.DetailsFields(reading: &input), fields.isValid else {
        throw JournalEntry.Malformed("is malformed photo details")
      }
      guard fields.stamp <= latestStamp else {
        throw JournalEntry.Malformed(JournalEntry.futureStamp)
      }
      return .details(fields.id, stamp: fields.stamp, at: offset)
    case .shownName:
      let (id, name, stamp) = try JournalEntry.decodeShownName(from: &input)
      guard stamp <= latestStamp else { throw JournalEntry.Malformed(JournalEntry.futureStamp) }
      return .shownName(id, name: name, stamp: stamp)
    default:
      return .other(
        try JournalEntry.decodeEntry(type, at: offset, from: &input, latestStamp: latestStamp))
    }
  }
}
