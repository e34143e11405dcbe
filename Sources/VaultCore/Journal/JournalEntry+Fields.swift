/// The fields of `added` and `details` entries as read from bytes, checked without making
/// a record: a big snapshot's photos are checked when it is read, and their records made
/// only when asked for (see `SnapshotBytes`).
extension JournalEntry {
  /// An `added` entry after its type byte. Its hash and name point into the bytes read.
  struct AddedFields {
    let id: BlobID
    let order: Int64
    let hash: UnsafeRawBufferPointer
    let bytes: Int64
    let format: ImageFormat
    let width: UInt32
    let height: UInt32
    let orientation: UInt8
    let modifiedAt: Timestamp
    let importedAt: Timestamp
    let name: UnsafeRawBufferPointer
    /// A video's duration (microseconds) and codec, which its entry ends with; nil for a still.
    let durationMicroseconds: Int64?
    let codec: UnsafeRawBufferPointer?

    /// Nil when the entry is cut short, or a field has no meaning (an unknown format, an
    /// orientation out of 1...8, nanoseconds past a second); `isValid` checks the rest.
    init?(reading input: inout ByteReader) {
      guard let id = input.blobID(), let order = input.int64(), let hash = input.slice(32),
        let bytes = input.int64(), let formatCode = input.byte(),
        let format = JournalEntry.format(code: formatCode),
        let width = input.uint32(), let height = input.uint32(), let orientation = input.byte(),
        (1...8).contains(orientation), let modifiedSeconds = input.int64(),
        let modifiedNanoseconds = input.uint32(), modifiedNanoseconds < 1_000_000_000,
        let importedSeconds = input.int64(), let importedNanoseconds = input.uint32(),
        importedNanoseconds < 1_000_000_000, let nameLength = input.uint16(),
        let name = input.slice(Int(nameLength))
      else { return nil }
      (self.id, self.order, self.hash, self.bytes, self.format) = (id, order, hash, bytes, format)
      (self.width, self.height, self.orientation, self.name) = (width, height, orientation, name)
      modifiedAt = Timestamp(seconds: modifiedSeconds, nanoseconds: Int32(modifiedNanoseconds))
      importedAt = Timestamp(seconds: importedSeconds, nanoseconds: Int32(importedNanoseconds))
      guard format.isVideo else {
        (durationMicroseconds, codec) = (nil, nil)
        return
      }
      guard let duration = input.int64(), let codecLength = input.byte(),
        let codec = input.slice(Int(codecLength))
      else { return nil }
      (durationMicroseconds, self.codec) = (duration, codec)
    }

    /// Whether the record is one vault accepts: its name is UTF-8 and its numbers are in
    /// range (see `PhotoRecord.outOfRange`).
    var isValid: Bool {
      JournalEntry.isUTF8(name)
        && PhotoRecord.sizesOutOfRange(bytes: bytes, width: Int(width), height: Int(height)) == nil
        && durationMicroseconds.map(PhotoRecord.durationRange.contains) ?? true
        && codec.map { $0.count <= JournalEntry.codecLimit && $0.allSatisfy { (0x21...0x7E).contains($0) } }
          ?? true
    }

    /// The record, or nil when it is not valid.
    var record: PhotoRecord? {
      guard isValid, let name = JournalEntry.utf8String(name) else { return nil }
      var record = PhotoRecord(
        id: id, name: name, bytes: bytes, format: format, width: Int(width), height: Int(height),
        orientation: Int(orientation), modifiedAt: modifiedAt, importedAt: importedAt,
        hash: ContentHash(bytes: hash))
      record.durationMicroseconds = durationMicroseconds
      if let codec, !codec.isEmpty { record.codec = String(decoding: codec, as: UTF8.self) }
      return record
    }
  }

  /// A `details` entry after its type byte. Its make and model point into the bytes read.
  struct DetailsFields {
    let id: BlobID
    let stamp: Int64
    let flags: UInt8
    let seconds: Int64
    let nanoseconds: UInt32
    let offset: Int16
    let make: UnsafeRawBufferPointer
    let model: UnsafeRawBufferPointer

    init?(reading input: inout ByteReader) {
      guard let id = input.blobID(), let stamp = input.int64(), let flags = input.byte(),
        let seconds = input.int64(), let nanoseconds = input.uint32(), let offsetBits = input.uint16(),
        let makeLength = input.byte(), let make = input.slice(Int(makeLength)),
        let modelLength = input.byte(), let model = input.slice(Int(modelLength))
      else { return nil }
      (self.id, self.stamp, self.flags, self.seconds, self.nanoseconds) = (
        id, stamp, flags, seconds, nanoseconds
      )
      (offset, self.make, self.model) = (Int16(bitPattern: offsetBits), make, model)
    }

    /// Whether the fields are in range, no flag is unknown, and every field the flags leave
    /// out is zero (one encoding for each value).
    var isValid: Bool {
      let hasTaken = flags & DetailsFlag.taken != 0
      let hasOffset = flags & DetailsFlag.utcOffset != 0
      return flags & ~DetailsFlag.all == 0 && nanoseconds < 1_000_000_000
        && (hasTaken ? takenRange.contains(seconds) : seconds == 0 && nanoseconds == 0)
        && (hasOffset ? hasTaken && offsetRange.contains(offset) : offset == 0)
        && (flags & DetailsFlag.make != 0) == !make.isEmpty
        && (flags & DetailsFlag.model != 0) == !model.isEmpty
        && JournalEntry.isUTF8(make) && JournalEntry.isUTF8(model)
    }

    /// When the photo was taken, if the entry says.
    var taken: CaptureTime? {
      guard flags & DetailsFlag.taken != 0 else { return nil }
      return CaptureTime(
        localSeconds: seconds, nanoseconds: Int32(nanoseconds),
        utcOffsetMinutes: flags & DetailsFlag.utcOffset != 0 ? offset : nil)
    }

    /// The details, or nil when they are not valid.
    var details: PhotoDetails? {
      guard isValid else { return nil }
      return PhotoDetails(
        taken: taken, cameraMake: make.isEmpty ? nil : JournalEntry.utf8String(make),
        cameraModel: model.isEmpty ? nil : JournalEntry.utf8String(model))
    }
  }

  /// Whether `bytes` are UTF-8, without making a string of ASCII (most names).
  static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
    !bytes.contains(where: { $0 >= 0x80 }) || String(validating: bytes, as: UTF8.self) != nil
  }
}
