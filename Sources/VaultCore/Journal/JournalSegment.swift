import Foundation

/// A journal segment: one writer's records, each a sealed batch of entries
/// (docs/FORMAT.md, "Journal segments"). A segment is written by one command only and
/// never changed by another, so a sync engine never sees two copies write one file.
///
///     header:   "VLTJ" ‖ version 0x02 ‖ segment id (16 bytes)
///     record i: length (4 bytes, big-endian) ‖ nonce (24 bytes) ‖ sealed
///
/// `sealed` is XChaCha20-Poly1305 under the space's journal key with the header ‖ i
/// (8 bytes, big-endian) as additional data, so a record moved to another place, segment
/// or space does not authenticate.
enum JournalSegment {
  static let magic = Array("VLTJ".utf8)
  static let version: UInt8 = 2
  static let namePrefix = "j-"
  static let headerLength = magic.count + 1 + BlobID.length
  static let nonceLength = RecordCipher.nonceLength
  static let tagLength = RecordCipher.tagLength
  /// A record is one command's batch; anything longer is damage, not a record.
  static let recordLimit = 256 << 20
  /// A longer segment is damage: no writer appends that much before a compaction.
  static let fileLimit = 1 << 30

  static func header(id: BlobID) -> [UInt8] { magic + [version] + id.bytes }

  static func additionalData(header: [UInt8], record: UInt64) -> [UInt8] {
    var writer = ByteWriter(output: header)
    writer.uint64(record)
    return writer.output
  }

  /// The plaintext of a record: the entries, the end mark, zero padding to a Padmé length.
  static func plaintext(_ entries: [JournalEntry]) -> [UInt8] {
    JournalEntry.encodeAll(entries, padded: true)
  }

  /// `length ‖ nonce ‖ sealed` for record number `record`.
  static func seal(_ plaintext: [UInt8], header: [UInt8], record: UInt64, key: SecureBytes, nonce: [UInt8])
    -> [UInt8]
  {
    let sealed = RecordCipher.seal(
      plaintext, additional: additionalData(header: header, record: record), nonce: nonce, key: key)
    var writer = ByteWriter()
    writer.uint32(UInt32(nonceLength + sealed.count))
    writer.bytes(nonce)
    writer.bytes(sealed)
    return writer.output
  }

  /// What reading a segment found.
  struct Contents {
    var records = 0
    /// Bytes after the last whole record that are not a record: what a writer killed in
    /// the middle of an append leaves (never reported to anyone, so nothing is lost). Such
    /// an append can also leave zeros where its bytes never reached the disk.
    var tornTail = false
  }

  /// Reads the segment at `path` (named `j-<id>`), handing every entry to `apply` in order.
  /// Throws `.damagedIndex` naming the file and the record for anything but a torn tail.
  /// Read record by record: memory is taken for one record at a time, never more than the
  /// file holds, and a run of zeros (a sparse file, say) is skipped without being read.
  static func read(path: String, id: BlobID, key: SecureBytes, apply: (JournalEntry) -> Void) throws
    -> Contents
  {
    func damage(_ reason: String) -> VaultError {
      .damagedIndex(path: path, reason: reason)
    }
    let file: SegmentFile
    do {
      file = try SegmentFile(path: path)
    } catch {
      throw damage("it cannot be read (\(error))")
    }
    guard file.size <= fileLimit else { throw damage("it is larger than any segment vault writes") }
    let header = header(id: id)
    let head = try file.bytes(at: 0, count: min(file.size, headerLength))
    guard head.count >= headerLength else {
      // A writer creates the header with the file; a shorter file is a creation cut short.
      if head.allSatisfy({ $0 == 0 }) || header.starts(with: head) { return Contents(tornTail: true) }
      throw damage("truncated header")
    }
    guard Array(head[0..<magic.count]) == magic else { throw damage("not a journal segment") }
    guard head[magic.count] == version else {
      throw damage("unsupported journal version \(head[magic.count])")
    }
    guard head == header else {
      throw damage("it holds another segment's records (its name was changed)")
    }
    do {
      return try readRecords(of: file, header: header, key: key, apply: apply)
    } catch VaultError.io(_, let reason) {
      throw damage("it cannot be read (\(reason))")
    }
  }

  /// The records after the header, read one at a time (see `read`).
  private static func readRecords(
    of file: SegmentFile, header: [UInt8], key: SecureBytes, apply: (JournalEntry) -> Void
  ) throws -> Contents {
    let path = file.path
    func damage(_ reason: String) -> VaultError {
      .damagedIndex(path: path, reason: reason)
    }
    var contents = Contents()
    var offset = headerLength
    while offset < file.size {
      let number = contents.records + 1
      let rest = file.size - offset
      let lengthBytes = try file.bytes(at: offset, count: min(rest, 4))
      // Zeros to the end are a file system's way of showing an append that never reached
      // the disk; they carry nothing.
      if lengthBytes.allSatisfy({ $0 == 0 }), try file.isZero(from: offset) {
        contents.tornTail = true
        break
      }
      guard rest >= 4 else {
        contents.tornTail = true
        break
      }
      let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
      guard length >= nonceLength + tagLength + 1, length <= recordLimit else {
        throw damage("record \(number) has an impossible length \(length)")
      }
      guard rest - 4 >= length else {
        contents.tornTail = true
        break
      }
      let recordEnd = offset + 4 + length
      switch try readRecord(
        of: file, at: offset + 4, length: length, header: header, number: number, key: key, apply: apply)
      {
      case .opened:
        contents.records += 1
        offset = recordEnd
      case .failed(let lastByte):
        // The last record, cut and then padded with zeros by a crash, is a torn tail too: the
        // file's last non-zero byte lies inside it and its own last byte is zero.
        if lastByte == 0, try file.isZero(from: recordEnd) {
          contents.tornTail = true
          return contents
        }
        throw damage(
          "record \(number) does not authenticate (changed, moved, or a record before it was removed)")
      case .malformed(let reason):
        throw damage("record \(number)\(reason)")
      }
    }
    return contents
  }

  /// Reads the record of `length` bytes at `start` and opens it. A record with a hole in it
  /// is not read: vault writes every byte of a record, and no block of a sealed record is
  /// zeros, so one whose blocks were never written (an append cut short, or a file made
  /// sparse by anyone with the vault folder: a record's length may claim 256 MiB at no
  /// cost to them) cannot authenticate; only its last byte counts (a torn tail's is zero).
  private static func readRecord(
    of file: SegmentFile, at start: Int, length: Int, header: [UInt8], number: Int, key: SecureBytes,
    apply: (JournalEntry) -> Void
  ) throws -> RecordOutcome {
    let end = start + length
    if file.hasHole(from: start, before: end) {
      return .failed(lastByte: try file.bytes(at: end - 1, count: 1)[0])
    }
    return openRecord(
      try file.bytes(at: start, count: length), header: header, number: number, key: key, apply: apply)
  }

  /// What opening one record gave.
  private enum RecordOutcome {
    case opened
    /// It did not authenticate; its last byte says whether it may be a torn tail.
    case failed(lastByte: UInt8)
    /// It authenticated, but its plaintext is not entries as vault writes them.
    case malformed(String)
  }

  /// Authenticates and decrypts one record (`nonce ‖ sealed`, the number-th of the segment
  /// whose header is `header`), then hands its entries to `apply`.
  private static func openRecord(
    _ record: [UInt8], header: [UInt8], number: Int, key: SecureBytes, apply: (JournalEntry) -> Void
  ) -> RecordOutcome {
    let additional = additionalData(header: header, record: UInt64(number - 1))
    var plaintext = [UInt8](repeating: 0, count: record.count - nonceLength - tagLength)
    defer { plaintext.wipe() }
    let authentic = record.withUnsafeBufferPointer {
      RecordCipher.open($0, additional: additional, key: key, into: &plaintext)
    }
    guard authentic else { return .failed(lastByte: record[record.count - 1]) }
    let entriesLength: Int
    do {
      entriesLength = try plaintext.withUnsafeBytes { try JournalEntry.decodeAll($0, apply) }
    } catch let error as JournalDecodingError {
      return .malformed(": entry \(error.entry) \(error.reason)")
    } catch {
      return .malformed(": \(error)")
    }
    guard plaintext.count == Padme.paddedLength(entriesLength) else {
      return .malformed(" is not padded as records are")
    }
    return .opened
  }
}

/// Appends records to a new segment of this writer's own. Each append is flushed before it
/// returns, so an entry is durable once the command reports it.
package final class JournalSegmentWriter {
  package let id: BlobID
  package let path: String
  private let directory: String
  private let key: SecureBytes
  private let header: [UInt8]
  private var descriptor: Int32
  private var records: UInt64 = 0
  /// The file's length after the last whole record; a failed append is cut back to it.
  private var length: Int
  private(set) var isBroken = false

  package init(directory: String, key: SecureBytes) throws {
    id = BlobID.random()
    self.directory = directory
    self.key = key
    path = directory + "/" + JournalSegment.namePrefix + id.hex
    header = JournalSegment.header(id: id)
    descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw VaultError.posix(path) }
    length = 0
    do {
      try write(header)
      length = header.count
    } catch {
      close(descriptor)
      unlink(path)
      throw error
    }
  }

  deinit {
    close(descriptor)
  }

  var fileLength: Int { length }

  package func append(_ entries: [JournalEntry]) throws {
    precondition(!isBroken, "a broken segment takes no more records")
    var plaintext = JournalSegment.plaintext(entries)
    defer { plaintext.wipe() }
    let record = JournalSegment.seal(
      plaintext, header: header, record: records, key: key,
      nonce: Sodium.randomBytes(JournalSegment.nonceLength))
    do {
      try write(record)
      if fdatasync(descriptor) != 0 { throw VaultError.posix(path) }
      // The first time, the segment's name too must be durable before its record is
      // reported (one flush of the folder, after the file's).
      if records == 0 { try syncDirectory(directory) }
    } catch {
      // Whatever reached the file is a torn tail; later records go to a new segment.
      isBroken = true
      _ = ftruncate(descriptor, off_t(length))
      throw error
    }
    records += 1
    length += record.count
  }

  private func write(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let written = bytes.withUnsafeBytes {
        Foundation.write(descriptor, $0.baseAddress! + offset, bytes.count - offset)
      }
      if written < 0 {
        if errno == EINTR { continue }
        throw VaultError.posix(path)
      }
      offset += written
    }
  }
}
