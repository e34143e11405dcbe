import Foundation

/// A snapshot's decrypted entries, kept while the photos it lists are: a photo's record is
/// decoded from them only when a command asks for it, so that opening a big space makes
/// no record at all. Never changed once made (so it is shared freely, and read through one
/// pointer without an array's checks at every field); wiped when released.
final class SnapshotBytes: @unchecked Sendable {
  private let buffer: UnsafeMutableRawBufferPointer
  /// The memory mapped for it (its length is a page or more).
  private let mapping: UnsafeMutableRawBufferPointer

  /// When the snapshot was checked as it was decrypted: the length of its entries with the
  /// end mark.
  let checkedLength: Int?

  /// The rest of `reader`'s plaintext, decrypted straight into memory of this object's own
  /// (no copy to wipe); more than `limit` bytes is damage. From `checkingFrom` bytes of
  /// file on, its entries are checked meanwhile on another thread (see `SnapshotChecker`): a
  /// malformed one throws its `JournalDecodingError`.
  init(reading reader: BlobReader, limit: Int, checkingFrom checkedSize: Int = .max) throws {
    // The file's size bounds the plaintext: address space only, its pages are made as the
    // chunks authenticate (a junk file of 1 GiB would otherwise cost 1 GiB of memory).
    let fileBytes = reader.remainingFileBytes
    let memory = try Self.map(min(fileBytes, limit))
    mapping = memory
    let checker = fileBytes >= checkedSize ? SnapshotChecker(buffer: UnsafeRawBufferPointer(memory)) : nil
    var written = 0
    do {
      let count = try reader.readRemaining(into: memory) { count in
        Self.makePages(of: memory, from: written, to: count)
        written = count
        checker?.decrypted(count)
      }
      written = count
      checkedLength = try checker?.finish(count: count)
      buffer = UnsafeMutableRawBufferPointer(rebasing: memory[0..<count])
    } catch {
      // The checker reads the memory until it is told to stop.
      checker?.abandon()
      Sodium.zero(memory.baseAddress, count: written)
      munmap(memory.baseAddress, memory.count)
      throw error
    }
  }

  /// The plaintext `bytes` as a read would hold it (for tests and the fuzz target): when
  /// `checkedInSteps` is given, checked on another thread as it arrives that many bytes at
  /// a time, as `init(reading:)` checks a big snapshot while decrypting it.
  init(_ bytes: [UInt8], checkedInSteps step: Int? = nil) throws {
    let memory = try Self.map(bytes.count)
    mapping = memory
    memory.copyBytes(from: bytes)
    buffer = UnsafeMutableRawBufferPointer(rebasing: memory[0..<bytes.count])
    guard let step else {
      checkedLength = nil
      return
    }
    let checker = SnapshotChecker(buffer: UnsafeRawBufferPointer(memory))
    for count in stride(from: step, to: bytes.count, by: max(1, step)) { checker.decrypted(count) }
    do {
      checkedLength = try checker.finish(count: bytes.count)
    } catch {
      Sodium.zero(memory.baseAddress, count: memory.count)
      munmap(memory.baseAddress, memory.count)
      throw error
    }
  }

  deinit {
    // Pages past the plaintext were never written.
    Sodium.zero(buffer.baseAddress, count: buffer.count)
    munmap(mapping.baseAddress, mapping.count)
  }

  /// Fresh address space for `count` bytes (no page is made yet).
  private static func map(_ count: Int) throws -> UnsafeMutableRawBufferPointer {
    let length = max(1, count)
    guard let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
      address != MAP_FAILED
    else { throw VaultError.io(path: "the snapshot", reason: String(cString: strerror(errno))) }
    return UnsafeMutableRawBufferPointer(start: address, count: length)
  }

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
    // MADV_POPULATE_WRITE (Linux 5.14); an older kernel refuses it and pages fault as before.
    _ = madvise(mapping.baseAddress! + start, min(step, mapping.count - start), 23)
  }

  var count: Int { buffer.count }

  func withBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try body(UnsafeRawBufferPointer(buffer))
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
      seconds: Int64(bigEndian: buffer.loadUnaligned(fromByteOffset: start, as: Int64.self)),
      nanoseconds: Int32(
        truncatingIfNeeded: UInt32(
          bigEndian: buffer.loadUnaligned(fromByteOffset: start + 8, as: UInt32.self))))
  }

  /// When the photo was taken, read alone from the `details` entry at `offset` (for
  /// sorting).
  func taken(details offset: Int) -> CaptureTime? {
    // The flags, seconds, nanoseconds and UTC offset follow the type, id and stamp.
    let start = offset + 1 + BlobID.length + 8
    let flags = buffer[start]
    guard flags & JournalEntry.DetailsFlag.taken != 0 else { return nil }
    let seconds = Int64(bigEndian: buffer.loadUnaligned(fromByteOffset: start + 1, as: Int64.self))
    let nanoseconds = UInt32(bigEndian: buffer.loadUnaligned(fromByteOffset: start + 9, as: UInt32.self))
    let utcOffset = UInt16(bigEndian: buffer.loadUnaligned(fromByteOffset: start + 13, as: UInt16.self))
    return CaptureTime(
      localSeconds: seconds, nanoseconds: Int32(truncatingIfNeeded: nanoseconds),
      utcOffsetMinutes: flags & JournalEntry.DetailsFlag.utcOffset != 0 ? Int16(bitPattern: utcOffset) : nil)
  }

  /// Where an `added` entry's import time starts: after its type, id, order, hash, size,
  /// format, width, height, orientation and modification time (docs/FORMAT.md).
  static let importedAtOffset = 1 + 16 + 8 + 32 + 8 + 1 + 4 + 4 + 1 + 8 + 4
}

/// An entry of a snapshot as it is first read: photos and their details are checked and
/// located, not decoded (see `SnapshotBytes`); anything else is decoded.
enum SnapshotItem {
  case added(BlobID, order: Int64, at: Int)
  case details(BlobID, stamp: Int64, at: Int)
  indirect case other(JournalEntry)

  /// The item whose type byte is at `offset` in `bytes`, checked already by `read` (by a
  /// scan of the whole snapshot), with its length; nil at the end mark. Only the fields an
  /// item holds are read, at their fixed places.
  static func checked(at offset: Int, in bytes: UnsafeRawBufferPointer) -> (item: SnapshotItem, length: Int)?
  {
    func id() -> BlobID {
      BlobID(
        high: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 1, as: UInt64.self)),
        low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 9, as: UInt64.self)))
    }
    // Both an `added` entry's order and a `details` entry's stamp follow the type and id.
    func afterID() -> Int64 {
      Int64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset + 1 + BlobID.length, as: Int64.self))
    }
    guard bytes[offset] != JournalEntry.TypeCode.end.rawValue,
      let length = JournalEntry.encodedLength(at: offset, in: bytes)
    else { return nil }
    switch bytes[offset] {
    case JournalEntry.TypeCode.added.rawValue: return (.added(id(), order: afterID(), at: offset), length)
    case JournalEntry.TypeCode.details.rawValue: return (.details(id(), stamp: afterID(), at: offset), length)
    default:
      var input = ByteReader(bytes)
      input.skip(offset + 1)
      guard
        let entry = try? JournalEntry.decodeEntry(
          JournalEntry.TypeCode(rawValue: bytes[offset])!, at: offset, from: &input,
          // Checked already against the clock of the check: a clock set back since
          // must not make the same entry fail now.
          latestStamp: .max)
      else { preconditionFailure("a snapshot's entries were checked when it was read") }
      return (.other(entry), length)
    }
  }

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
    default:
      return .other(
        try JournalEntry.decodeEntry(type, at: offset, from: &input, latestStamp: latestStamp))
    }
  }
}
