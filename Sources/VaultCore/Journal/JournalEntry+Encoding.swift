/// How journal entries are laid out as bytes (docs/FORMAT.md, "Journal entries"): the
/// codes, lengths and flags the decoder shares, and the encoder.
extension JournalEntry {
  /// Stills take codes from 1, videos from 16. A video's `added` entry ends with its
  /// duration and codec (`videoTailLength`).
  static let formatCodes: [ImageFormat: UInt8] = [
    .jpeg: 1, .png: 2, .heic: 3, .gif: 4, .webp: 5, .avif: 6, .mp4: 16, .mov: 17,
  ]

  static func format(code: UInt8) -> ImageFormat? {
    switch code {
    case 1: return .jpeg
    case 2: return .png
    case 3: return .heic
    case 4: return .gif
    case 5: return .webp
    case 6: return .avif
    case 16: return .mp4
    case 17: return .mov
    default: return nil
    }
  }

  /// Where an `added` entry's format code lies, from its type byte: after the id, order,
  /// content hash and size.
  static let addedFormatOffset = 1 + BlobID.length + 8 + 32 + 8
  /// Bytes after a video's name besides its codec: the duration (8) and the codec's length (1).
  static let videoTailLength = 9
  /// The most bytes of a codec's name kept (FFmpeg's are a few letters: `h264`, `hevc`).
  static let codecLimit = 32

  /// Bytes of an `added` entry before its name, type byte included; the name's length is
  /// the last two of them.
  static let addedFixedLength = 101
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

  /// The bytes `encode` writes.
  var encodedLength: Int {
    switch self {
    case .added(let record, _):
      return Self.addedFixedLength + min(record.name.utf8.count, Int(UInt16.max))
        + (record.format.isVideo ? Self.videoTailLength + Self.codecBytes(record.codec).count : 0)
    case .deleted: return 1 + BlobID.length
    case .selection: return Self.selectionLength
    case .albumNamed(_, let name, _):
      return Self.albumNamedFixedLength + min(name.utf8.count, Int(UInt16.max))
    case .albumDeleted: return Self.albumDeletedLength
    case .albumMembership: return Self.albumMembershipLength
    case .details(_, let details, _):
      return Self.detailsFixedLength + Self.textBytes(details.cameraMake).count
        + Self.textBytes(details.cameraModel).count
    case .liveIdentifier(_, let identifier):
      return Self.liveIdentifierFixedLength + Self.liveIdentifierBytes(identifier).count
    case .trashed: return Self.trashedLength
    case .spaceSetting: return Self.spaceSettingLength
    case .shownName(_, let name, _):
      return Self.shownNameFixedLength + Self.shownNameBytes(name).count
    case .offloadRemote(let remote, _):
      return Self.offloadRemoteFixedLength + min(remote.utf8.count, Self.offloadRemoteLimit)
    }
  }

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
  package static func encodeAll(_ entries: [JournalEntry], padded: Bool = false) -> [UInt8] {
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
      Self.encodeAdded(record, order: order, into: &output)
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
      Self.encodeDetails(details, of: id, stamp: stamp, into: &output)
    case .liveIdentifier(let id, let identifier):
      Self.encodeLiveIdentifier(identifier, of: id, into: &output)
    case .trashed(let id, let trashed, let stamp):
      Self.encodeTrashed(id, trashed: trashed, stamp: stamp, into: &output)
    case .spaceSetting(let setting, let stamp):
      Self.encodeSpaceSetting(setting, stamp: stamp, into: &output)
    case .shownName(let id, let name, let stamp):
      Self.encodeShownName(name, of: id, stamp: stamp, into: &output)
    case .offloadRemote(let remote, let stamp):
      Self.encodeOffloadRemote(remote, stamp: stamp, into: &output)
    }
  }

  private static func encodeAdded(_ record: PhotoRecord, order: Int64, into output: inout ByteWriter) {
    output.byte(TypeCode.added.rawValue)
    output.bytes(record.id.bytes)
    output.int64(order)
    output.bytes(record.hash.encoded)
    output.int64(record.bytes)
    output.byte(formatCodes[record.format]!)
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
    guard record.format.isVideo else { return }
    output.int64(record.durationMicroseconds ?? 0)
    let codec = codecBytes(record.codec)
    output.byte(UInt8(codec.count))
    output.bytes(codec)
  }

  /// A codec's name as an `added` entry keeps it: ASCII, at most `codecLimit` bytes.
  static func codecBytes(_ codec: String?) -> ArraySlice<UInt8> {
    guard let codec, codec.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return [] }
    return Array(codec.utf8).prefix(codecLimit)
  }

  private static func encodeDetails(
    _ details: PhotoDetails, of id: BlobID, stamp: Int64, into output: inout ByteWriter
  ) {
    let make = textBytes(details.cameraMake)
    let model = textBytes(details.cameraModel)
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
