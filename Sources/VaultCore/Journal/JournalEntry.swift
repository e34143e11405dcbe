import Dispatch

/// One change to a space, as the journal stores it (docs/FORMAT.md, "Journal entries").
/// Entries are facts that can be applied in any order and any number of times with the same
/// result, so copies of a space changed apart merge by taking the union of their entries.
enum JournalEntry: Equatable {
  /// A photo was imported. `order` places it in the list (nanoseconds since 1970, at least
  /// one more than every photo the writer knew of).
  case added(PhotoRecord, order: Int64)
  /// A photo was deleted, for good: a later `added` of the same id is ignored.
  case deleted(BlobID)
  /// A photo was selected or unselected at `stamp` (nanoseconds since 1970); the latest
  /// stamp wins, and at equal stamps selecting wins.
  case selection(BlobID, selected: Bool, stamp: Int64)
  /// An album was made or renamed at `stamp`; the latest stamp wins (at equal stamps, the
  /// name whose UTF-8 bytes sort last).
  case albumNamed(AlbumID, name: String, stamp: Int64)
  /// An album was deleted, for good (its photos stay).
  case albumDeleted(AlbumID)
  /// A photo was put in or taken out of an album at `stamp`; the latest stamp wins, and at
  /// equal stamps being in the album wins.
  case albumMembership(AlbumID, photo: BlobID, member: Bool, stamp: Int64)
  /// What a photo's file says of when it was taken and by which camera, as read at
  /// `stamp` (nanoseconds since 1970): at import, or later for a photo imported before
  /// vault read it. The latest stamp wins. An empty one records that the file says nothing,
  /// so that it is not read again.
  case details(BlobID, PhotoDetails, stamp: Int64)

  enum TypeCode: UInt8 {
    /// Ends the entries of a record or snapshot; only zero bytes (padding) may follow.
    case end = 0
    case added = 1
    case deleted = 2
    case selection = 3
    case albumNamed = 4
    case albumDeleted = 5
    case albumMembership = 6
    case details = 7
  }

  /// Whether the entry changes the list of photos or their selection (an album's change
  /// does not).
  var changesPhotoList: Bool {
    switch self {
    case .added, .deleted, .selection, .details: return true
    case .albumNamed, .albumDeleted, .albumMembership: return false
    }
  }

  static let formatCodes: [ImageFormat: UInt8] = [.jpeg: 1, .png: 2, .heic: 3]

  /// The UTF-8 text of `bytes`, or nil if it is not UTF-8. ASCII (most names) skips the
  /// validation, which is slow for a big space's hundred thousand names.
  static func utf8String(_ bytes: UnsafeRawBufferPointer) -> String? {
    if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
    return String(validating: bytes, as: UTF8.self)
  }

  static func format(code: UInt8) -> ImageFormat? {
    switch code {
    case 1: return .jpeg
    case 2: return .png
    case 3: return .heic
    default: return nil
    }
  }

  /// The bytes `encode` writes.
  var encodedLength: Int {
    switch self {
    case .added(let record, _): return Self.addedFixedLength + min(record.name.utf8.count, Int(UInt16.max))
    case .deleted: return 1 + BlobID.length
    case .selection: return Self.selectionLength
    case .albumNamed(_, let name, _):
      return Self.albumNamedFixedLength + min(name.utf8.count, Int(UInt16.max))
    case .albumDeleted: return Self.albumDeletedLength
    case .albumMembership: return Self.albumMembershipLength
    case .details(_, let details, _):
      return Self.detailsFixedLength + Self.textBytes(details.cameraMake).count
        + Self.textBytes(details.cameraModel).count
    }
  }

  static let selectionLength = 1 + BlobID.length + 1 + 8
  /// Bytes of an `albumNamed` entry before its name, type byte included; the name's length
  /// is the last two of them.
  static let albumNamedFixedLength = 1 + AlbumID.length + 8 + 2
  static let albumDeletedLength = 1 + AlbumID.length
  static let albumMembershipLength = 1 + AlbumID.length + BlobID.length + 1 + 8

  /// Bytes of a `details` entry besides its make and model, type byte included: the make's
  /// length is the 41st of them, the model's length follows the make.
  static let detailsFixedLength = 42

  /// Flags of a `details` entry: which of its fields the file gave.
  enum DetailsFlag {
    static let taken: UInt8 = 0x01
    static let utcOffset: UInt8 = 0x02
    static let make: UInt8 = 0x04
    static let model: UInt8 = 0x08
    static let all: UInt8 = 0x0F
  }

  /// Seconds from year 1 to year 9999 (0001-01-01T00:00:00 to 9999-12-31T23:59:59), the
  /// dates EXIF can write.
  static let takenRange: ClosedRange<Int64> = -62_135_596_800...253_402_300_799
  /// How far past the current time a stamp may lie: ten years, in nanoseconds. A new
  /// change is stamped after the latest stamp seen (the hybrid clock), so a stamp far in the
  /// future would make every later change lose to it, and one at the end of 64 bits could
  /// never be passed at all (the selection it sets could not be undone). Ten years leave
  /// room for clocks that were wrong and synced copies, and keep any stamp that is accepted
  /// more than a century away from the end of 64 bits (year 2262).
  static let stampLeeway: Int64 = 10 * 365_25 * 864 * 1_000_000_000

  /// The latest stamp a journal read at `now` (nanoseconds since 1970) accepts.
  static func latestStamp(now: Int64 = Timestamp.now().nanosecondsSince1970) -> Int64 {
    let (sum, overflow) = now.addingReportingOverflow(stampLeeway)
    return overflow ? .max : sum
  }

  /// UTC offsets from -23:59 to +23:59, in minutes.
  static let offsetRange: ClosedRange<Int16> = -1439...1439

  /// A make's or model's UTF-8 bytes, cut on a character boundary to what the entry's
  /// one-byte length holds (a record holds at most `PhotoDetails.textLimit` of them).
  static func textBytes(_ text: String?) -> ArraySlice<UInt8> {
    guard let text else { return [] }
    var bytes = Array(text.utf8)[...]
    while bytes.count > Int(UInt8.max) || String(validating: bytes, as: UTF8.self) == nil {
      bytes = bytes.dropLast()
    }
    return bytes
  }

  /// `entries` ‖ the end mark, and with `padded` zeros up to the Padmé length. Sized up
  /// front, so that no growing copy of the records is left behind unwiped.
  static func encodeAll(_ entries: [JournalEntry], padded: Bool = false) -> [UInt8] {
    let length = entries.reduce(1) { $0 + $1.encodedLength }
    var writer = ByteWriter()
    writer.output.reserveCapacity(padded ? Padme.paddedLength(length) : length)
    for entry in entries { entry.encode(into: &writer) }
    writer.byte(TypeCode.end.rawValue)
    if padded { writer.output += repeatElement(0, count: Padme.paddedLength(length) - length) }
    return writer.output
  }

  func encode(into output: inout ByteWriter) {
    switch self {
    case .added(let record, let order):
      output.byte(TypeCode.added.rawValue)
      output.bytes(record.id.bytes)
      output.int64(order)
      output.bytes(decodeHex(record.contentHash) ?? [])
      output.int64(record.bytes)
      output.byte(Self.formatCodes[record.format]!)
      output.uint32(UInt32(clamping: record.width))
      output.uint32(UInt32(clamping: record.height))
      output.byte(UInt8(clamping: record.orientation))
      output.int64(record.modifiedAt.seconds)
      output.uint32(UInt32(bitPattern: record.modifiedAt.nanoseconds))
      output.int64(record.importedAt.seconds)
      output.uint32(UInt32(bitPattern: record.importedAt.nanoseconds))
      let name = Array(record.name.utf8)
      output.uint16(UInt16(clamping: name.count))
      output.bytes(name.prefix(Int(UInt16.max)))
    case .deleted(let id):
      output.byte(TypeCode.deleted.rawValue)
      output.bytes(id.bytes)
    case .selection(let id, let selected, let stamp):
      output.byte(TypeCode.selection.rawValue)
      output.bytes(id.bytes)
      output.byte(selected ? 1 : 0)
      output.int64(stamp)
    case .albumNamed(let album, let name, let stamp):
      output.byte(TypeCode.albumNamed.rawValue)
      output.bytes(album.bytes)
      output.int64(stamp)
      let bytes = Array(name.utf8)
      output.uint16(UInt16(clamping: bytes.count))
      output.bytes(bytes.prefix(Int(UInt16.max)))
    case .albumDeleted(let album):
      output.byte(TypeCode.albumDeleted.rawValue)
      output.bytes(album.bytes)
    case .albumMembership(let album, let photo, let member, let stamp):
      output.byte(TypeCode.albumMembership.rawValue)
      output.bytes(album.bytes)
      output.bytes(photo.bytes)
      output.byte(member ? 1 : 0)
      output.int64(stamp)
    case .details(let id, let details, let stamp):
      let make = Self.textBytes(details.cameraMake)
      let model = Self.textBytes(details.cameraModel)
      var flags: UInt8 = 0
      if details.taken != nil { flags |= DetailsFlag.taken }
      if details.taken?.utcOffsetMinutes != nil { flags |= DetailsFlag.utcOffset }
      if !make.isEmpty { flags |= DetailsFlag.make }
      if !model.isEmpty { flags |= DetailsFlag.model }
      output.byte(TypeCode.details.rawValue)
      output.bytes(id.bytes)
      output.int64(stamp)
      output.byte(flags)
      output.int64(details.taken?.localSeconds ?? 0)
      output.uint32(UInt32(bitPattern: details.taken?.nanoseconds ?? 0))
      output.uint16(UInt16(bitPattern: details.taken?.utcOffsetMinutes ?? 0))
      output.byte(UInt8(make.count))
      output.bytes(make)
      output.byte(UInt8(model.count))
      output.bytes(model)
    }
  }

  /// Decodes the entries of a record or snapshot up to its end mark; the rest must be zero
  /// padding. Returns the length up to and with the end mark. Throws
  /// `JournalDecodingError` naming the entry that is malformed.
  @discardableResult
  static func decodeAll(_ bytes: UnsafeRawBufferPointer, _ apply: (JournalEntry) -> Void) throws -> Int {
    try decode(bytes, from: 0, to: nil, firstNumber: 1, apply)
  }

  /// Decodes the entries from `start`, up to `end` (an entry's start) or, without one, up to
  /// the end mark, which must be followed by padding only.
  private static func decode(
    _ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int?, firstNumber: Int,
    _ apply: (JournalEntry) -> Void
  ) throws -> Int {
    var input = ByteReader(bytes)
    input.skip(start)
    var number = firstNumber - 1
    let latestStamp = latestStamp()
    func future(_ stamp: Int64) -> JournalDecodingError? {
      stamp <= latestStamp ? nil : JournalDecodingError(entry: number, reason: Self.futureStamp)
    }
    while true {
      if let end, input.offset >= end {
        // Slices are cut where entries start; one that ran past its cut was misread.
        guard input.offset == end else {
          throw JournalDecodingError(entry: number, reason: "runs past the start of the next entry")
        }
        return input.offset
      }
      number += 1
      guard let code = input.byte() else {
        throw JournalDecodingError(entry: number, reason: "has no end mark")
      }
      guard let type = TypeCode(rawValue: code) else {
        throw JournalDecodingError(entry: number, reason: "has an unknown type \(code)")
      }
      switch type {
      case .end:
        guard input.remainingAreZero() else {
          throw JournalDecodingError(entry: number, reason: "is followed by bytes that are not padding")
        }
        return input.offset
      case .added:
        guard let entry = decodeAdded(&input) else {
          throw JournalDecodingError(entry: number, reason: "is a malformed photo record")
        }
        apply(entry)
      case .deleted:
        guard let id = input.blobID() else {
          throw JournalDecodingError(entry: number, reason: "is cut short")
        }
        apply(.deleted(id))
      case .selection:
        guard let id = input.blobID(), let selected = input.byte(), selected <= 1, let stamp = input.int64()
        else {
          throw JournalDecodingError(entry: number, reason: "is a malformed selection")
        }
        if let error = future(stamp) { throw error }
        apply(.selection(id, selected: selected == 1, stamp: stamp))
      case .albumNamed:
        // An empty name is nothing vault writes: a record holding one was not made by it.
        guard let album = input.blobID().map(AlbumID.init), let stamp = input.int64(),
          let length = input.uint16(), length > 0, let bytes = input.slice(Int(length)),
          let name = Self.utf8String(bytes)
        else {
          throw JournalDecodingError(entry: number, reason: "is a malformed album name")
        }
        if let error = future(stamp) { throw error }
        apply(.albumNamed(album, name: name, stamp: stamp))
      case .albumDeleted:
        guard let album = input.blobID().map(AlbumID.init) else {
          throw JournalDecodingError(entry: number, reason: "is cut short")
        }
        apply(.albumDeleted(album))
      case .albumMembership:
        guard let album = input.blobID().map(AlbumID.init), let photo = input.blobID(),
          let member = input.byte(), member <= 1, let stamp = input.int64()
        else {
          throw JournalDecodingError(entry: number, reason: "is a malformed album membership")
        }
        if let error = future(stamp) { throw error }
        apply(.albumMembership(album, photo: photo, member: member == 1, stamp: stamp))
      case .details:
        guard let entry = decodeDetails(&input) else {
          throw JournalDecodingError(entry: number, reason: "is malformed photo details")
        }
        if case .details(_, _, let stamp) = entry, let error = future(stamp) { throw error }
        apply(entry)
      }
    }
  }

  /// Why an entry whose stamp is past `latestStamp` is refused.
  static let futureStamp = "is stamped more than ten years after the current time"

  /// Bytes of an `added` entry before its name, type byte included; the name's length is
  /// the last two of them.
  static let addedFixedLength = 101

  /// `decodeAll` on several threads, for a big snapshot: the entries' boundaries are found
  /// first from their lengths alone (cheap), then slices between them are decoded at once,
  /// then handed to `apply` in order. The same result and the same errors.
  @discardableResult
  static func decodeAllInParallel(
    _ bytes: UnsafeRawBufferPointer, slices: Int, _ apply: (JournalEntry) -> Void
  ) throws -> Int {
    var starts: [(offset: Int, number: Int)] = [(0, 1)]
    let target = max(1, bytes.count / slices)
    var offset = 0
    var number = 1
    scan: while offset < bytes.count, starts.count < slices {
      let length: Int
      switch bytes[offset] {
      case TypeCode.added.rawValue:
        guard offset + addedFixedLength <= bytes.count else { break scan }
        length =
          addedFixedLength
          + (Int(bytes[offset + addedFixedLength - 2]) << 8 | Int(bytes[offset + addedFixedLength - 1]))
      case TypeCode.deleted.rawValue: length = 1 + BlobID.length
      case TypeCode.selection.rawValue: length = selectionLength
      case TypeCode.albumNamed.rawValue:
        guard offset + albumNamedFixedLength <= bytes.count else { break scan }
        length =
          albumNamedFixedLength
          + (Int(bytes[offset + albumNamedFixedLength - 2]) << 8
            | Int(bytes[offset + albumNamedFixedLength - 1]))
      case TypeCode.albumDeleted.rawValue: length = albumDeletedLength
      case TypeCode.albumMembership.rawValue: length = albumMembershipLength
      case TypeCode.details.rawValue:
        let makeLengthAt = offset + detailsFixedLength - 2
        guard makeLengthAt < bytes.count else { break scan }
        let modelLengthAt = makeLengthAt + 1 + Int(bytes[makeLengthAt])
        guard modelLengthAt < bytes.count else { break scan }
        length = detailsFixedLength + Int(bytes[makeLengthAt]) + Int(bytes[modelLengthAt])
      default: break scan  // the end mark, or damage the last slice's decoder will name
      }
      offset += length
      number += 1
      if offset >= target * starts.count && offset < bytes.count { starts.append((offset, number)) }
    }
    // Each slice writes only its own slots, through buffers made before the threads start.
    var sliceEntries = [[JournalEntry]](repeating: [], count: starts.count)
    var results = [Result<Int, Error>](repeating: .success(0), count: starts.count)
    sliceEntries.withUnsafeMutableBufferPointer { entriesOut in
      results.withUnsafeMutableBufferPointer { resultsOut in
        DispatchQueue.concurrentPerform(iterations: starts.count) { slice in
          var entries: [JournalEntry] = []
          let end = slice + 1 < starts.count ? starts[slice + 1].offset : nil
          resultsOut[slice] = Result {
            try decode(bytes, from: starts[slice].offset, to: end, firstNumber: starts[slice].number) {
              entries.append($0)
            }
          }
          entriesOut[slice] = entries
        }
      }
    }
    var length = 0
    for slice in starts.indices {
      length = try results[slice].get()
      for entry in sliceEntries[slice] { apply(entry) }
    }
    return length
  }

  /// A `details` entry after its type byte; nil when a field is out of range, a flag is
  /// unknown, or a field the flags leave out is not zero (one encoding for each value).
  private static func decodeDetails(_ input: inout ByteReader) -> JournalEntry? {
    guard let id = input.blobID(), let stamp = input.int64(), let flags = input.byte(),
      flags & ~DetailsFlag.all == 0, let seconds = input.int64(), let nanoseconds = input.uint32(),
      nanoseconds < 1_000_000_000, let offsetBits = input.uint16(),
      let makeLength = input.byte(), let make = input.slice(Int(makeLength)),
      let modelLength = input.byte(), let model = input.slice(Int(modelLength))
    else { return nil }
    let offset = Int16(bitPattern: offsetBits)
    let hasTaken = flags & DetailsFlag.taken != 0
    let hasOffset = flags & DetailsFlag.utcOffset != 0
    guard hasTaken ? takenRange.contains(seconds) : seconds == 0 && nanoseconds == 0,
      hasOffset ? hasTaken && offsetRange.contains(offset) : offset == 0,
      (flags & DetailsFlag.make != 0) == (makeLength > 0),
      (flags & DetailsFlag.model != 0) == (modelLength > 0)
    else { return nil }
    var details = PhotoDetails()
    if hasTaken {
      details.taken = CaptureTime(
        localSeconds: seconds, nanoseconds: Int32(nanoseconds), utcOffsetMinutes: hasOffset ? offset : nil)
    }
    if makeLength > 0 {
      guard let text = utf8String(make) else { return nil }
      details.cameraMake = text
    }
    if modelLength > 0 {
      guard let text = utf8String(model) else { return nil }
      details.cameraModel = text
    }
    return .details(id, details, stamp: stamp)
  }

  private static func decodeAdded(_ input: inout ByteReader) -> JournalEntry? {
    guard let id = input.blobID(), let order = input.int64(), let hash = input.slice(32),
      let bytes = input.int64(), bytes >= 0, let formatCode = input.byte(),
      let format = Self.format(code: formatCode),
      let width = input.uint32(), let height = input.uint32(), let orientation = input.byte(),
      (1...8).contains(orientation), let modifiedSeconds = input.int64(),
      let modifiedNanoseconds = input.uint32(),
      modifiedNanoseconds < 1_000_000_000, let importedSeconds = input.int64(),
      let importedNanoseconds = input.uint32(), importedNanoseconds < 1_000_000_000,
      let nameLength = input.uint16(), let nameBytes = input.slice(Int(nameLength)),
      let name = Self.utf8String(nameBytes)
    else { return nil }
    let record = PhotoRecord(
      id: id, name: name, bytes: bytes, format: format, width: Int(width), height: Int(height),
      orientation: Int(orientation),
      modifiedAt: Timestamp(seconds: modifiedSeconds, nanoseconds: Int32(modifiedNanoseconds)),
      importedAt: Timestamp(seconds: importedSeconds, nanoseconds: Int32(importedNanoseconds)),
      contentHash: hexString(hash))
    guard record.outOfRange == nil else { return nil }
    return .added(record, order: order)
  }
}

/// Why an entry of a journal record or snapshot could not be read.
struct JournalDecodingError: Error {
  /// The entry's number, from 1.
  let entry: Int
  let reason: String
}

/// Big-endian bytes written one field at a time.
struct ByteWriter {
  var output: [UInt8] = []

  mutating func byte(_ value: UInt8) { output.append(value) }
  mutating func bytes<C: Collection>(_ values: C) where C.Element == UInt8 {
    output.append(contentsOf: values)
  }
  mutating func uint16(_ value: UInt16) { output += [UInt8(value >> 8), UInt8(value & 0xFF)] }
  mutating func uint32(_ value: UInt32) {
    for shift in stride(from: 24, through: 0, by: -8) {
      output.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }
  mutating func uint64(_ value: UInt64) {
    for shift in stride(from: 56, through: 0, by: -8) {
      output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
    }
  }
  mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }
}

/// Reads big-endian fields; every read returns nil past the end instead of trapping.
struct ByteReader {
  private let buffer: UnsafeRawBufferPointer
  private(set) var offset = 0

  init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

  var remaining: Int { buffer.count - offset }

  mutating func skip(_ count: Int) { offset = min(buffer.count, offset + count) }

  mutating func byte() -> UInt8? {
    guard remaining >= 1 else { return nil }
    defer { offset += 1 }
    return buffer[offset]
  }

  /// The next `count` bytes, in place (valid as long as the buffer).
  mutating func slice(_ count: Int) -> UnsafeRawBufferPointer? {
    guard count >= 0, remaining >= count else { return nil }
    defer { offset += count }
    return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
  }

  mutating func blobID() -> BlobID? {
    guard let high = integer(UInt64.self), let low = integer(UInt64.self) else { return nil }
    return BlobID(high: high, low: low)
  }

  private mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T? {
    let width = MemoryLayout<T>.size
    guard remaining >= width else { return nil }
    defer { offset += width }
    return T(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: T.self))
  }

  mutating func uint16() -> UInt16? { integer(UInt16.self) }
  mutating func uint32() -> UInt32? { integer(UInt32.self) }
  mutating func int64() -> Int64? { integer(Int64.self) }

  func remainingAreZero() -> Bool {
    buffer[offset...].allSatisfy { $0 == 0 }
  }
}
