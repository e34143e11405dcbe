/// Reading journal entries back from bytes (docs/FORMAT.md, "Journal entries"). Every value
/// is checked as it is read: one encoding for each value, ranges that keep arithmetic safe.
extension JournalEntry {
  /// Decodes the entries of a record or snapshot up to its end mark; the rest must be zero
  /// padding. Returns the length up to and with the end mark. Throws
  /// `JournalDecodingError` naming the entry that is malformed.
  @discardableResult
  package static func decodeAll(_ bytes: UnsafeRawBufferPointer, _ apply: (JournalEntry) -> Void) throws
    -> Int
  {
    try decode(bytes, from: 0, to: nil, firstNumber: 1, apply)
  }

  /// Decodes the entries from `start`, up to `end` (an entry's start) or, without one, up to
  /// the end mark, which must be followed by padding only.
  static func decode(
    _ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int?, firstNumber: Int,
    _ apply: (JournalEntry) -> Void
  ) throws -> Int {
    try scan(bytes, from: start, to: end, firstNumber: firstNumber, reading: decodeEntry, apply)
  }

  /// Reads the entries from `start` as `decode` does, each through `read` (given its type,
  /// the offset of its type byte, the input after it and the latest stamp accepted), and
  /// hands what `read` made of it to `apply`.
  static func scan<Item>(
    _ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int?, firstNumber: Int,
    reading read: (TypeCode, Int, inout ByteReader, Int64) throws(Malformed) -> Item,
    _ apply: (Item) -> Void
  ) throws -> Int {
    var input = ByteReader(bytes)
    input.skip(start)
    var number = firstNumber - 1
    let latestStamp = latestStamp()
    while true {
      if let end, input.offset >= end {
        // Slices are cut where entries start; one that ran past its cut was misread.
        guard input.offset == end else {
          throw JournalDecodingError(entry: number, reason: "runs past the start of the next entry")
        }
        return input.offset
      }
      number += 1
      let offset = input.offset
      guard let code = input.byte() else {
        throw JournalDecodingError(entry: number, reason: "has no end mark")
      }
      guard let type = TypeCode(rawValue: code) else {
        throw JournalDecodingError(entry: number, reason: "has an unknown type \(code)")
      }
      guard type != .end else {
        guard input.remainingAreZero() else {
          throw JournalDecodingError(entry: number, reason: "is followed by bytes that are not padding")
        }
        return input.offset
      }
      do {
        apply(try read(type, offset, &input, latestStamp))
      } catch {
        throw JournalDecodingError(entry: number, reason: error.reason)
      }
    }
  }

  /// Why an entry is malformed, as `JournalDecodingError` words it after the entry's number.
  struct Malformed: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
  }

  /// The entry of type `type` (not the end mark) after its type byte (at `offset`).
  static func decodeEntry(_ type: TypeCode, at offset: Int, from input: inout ByteReader, latestStamp: Int64)
    throws(Malformed) -> JournalEntry
  {
    func checked(_ stamp: Int64) throws(Malformed) -> Int64 {
      guard stamp <= latestStamp else { throw Malformed(futureStamp) }
      return stamp
    }
    switch type {
    case .end:
      preconditionFailure("the end mark is read by `decode`")
    case .added:
      guard let fields = AddedFields(reading: &input), let record = fields.record else {
        throw Malformed("is a malformed photo record")
      }
      return .added(record, order: fields.order)
    case .deleted:
      guard let id = input.blobID() else { throw Malformed("is cut short") }
      return .deleted(id)
    case .selection:
      guard let id = input.blobID(), let selected = input.byte(), selected <= 1, let stamp = input.int64()
      else { throw Malformed("is a malformed selection") }
      return .selection(id, selected: selected == 1, stamp: try checked(stamp))
    case .albumNamed:
      // An empty name is nothing vault writes: a record holding one was not made by it.
      guard let album = input.blobID().map(AlbumID.init), let stamp = input.int64(),
        let length = input.uint16(), length > 0, let bytes = input.slice(Int(length)),
        let name = utf8String(bytes)
      else { throw Malformed("is a malformed album name") }
      return .albumNamed(album, name: name, stamp: try checked(stamp))
    case .albumDeleted:
      guard let album = input.blobID().map(AlbumID.init) else { throw Malformed("is cut short") }
      return .albumDeleted(album)
    case .albumMembership:
      guard let album = input.blobID().map(AlbumID.init), let photo = input.blobID(),
        let member = input.byte(), member <= 1, let stamp = input.int64()
      else { throw Malformed("is a malformed album membership") }
      return .albumMembership(album, photo: photo, member: member == 1, stamp: try checked(stamp))
    case .details:
      guard let fields = DetailsFields(reading: &input), let details = fields.details else {
        throw Malformed("is malformed photo details")
      }
      return .details(fields.id, details, stamp: try checked(fields.stamp))
    case .liveIdentifier:
      return try decodeLiveIdentifier(from: &input)
    case .trashed:
      return try decodeTrashed(from: &input, latestStamp: latestStamp)
    case .spaceSetting:
      return try decodeSpaceSetting(from: &input, latestStamp: latestStamp)
    case .shownName:
      let (id, name, stamp) = try decodeShownName(from: &input)
      return .shownName(id, name: name, stamp: try checked(stamp))
    case .offloadRemote:
      return try decodeOffloadRemote(from: &input, latestStamp: latestStamp)
    }
  }

  /// The UTF-8 text of `bytes`, or nil if it is not UTF-8. ASCII (most names) skips the
  /// validation, which is slow for a big space's hundred thousand names.
  static func utf8String(_ bytes: UnsafeRawBufferPointer) -> String? {
    if !bytes.contains(where: { $0 >= 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
    return String(validating: bytes, as: UTF8.self)
  }
}

/// Why an entry of a journal record or snapshot could not be read.
struct JournalDecodingError: Error {
  /// The entry's number, from 1.
  let entry: Int
  let reason: String
}
