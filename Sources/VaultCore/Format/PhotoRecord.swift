import Foundation

/// A moment in time as stored: seconds and nanoseconds since 1970 (UTC).
public struct Timestamp: Codable, Equatable, Sendable {
  public var seconds: Int64
  public var nanoseconds: Int32

  public init(seconds: Int64, nanoseconds: Int32 = 0) {
    self.seconds = seconds
    self.nanoseconds = nanoseconds
  }

  /// Nanoseconds since 1970, clamped to what 64 bits hold (years 1678 to 2262).
  var nanosecondsSince1970: Int64 {
    let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    let (sum, overflowed) = product.addingReportingOverflow(Int64(nanoseconds))
    return overflowed ? .max : sum
  }

  public static func now() -> Timestamp {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Timestamp(seconds: Int64(now.tv_sec), nanoseconds: Int32(now.tv_nsec))
  }
}

/// What vault knows of one photo. It is stored inside the photo's own encrypted original
/// (so the index can be rebuilt from the originals) and copied into the index.
public struct PhotoRecord: Equatable, Sendable {
  /// The blob id, stored as 32 hex digits: `Photo/<id>` and `Thumb/<id>`.
  public var id: BlobID
  /// The original file name (no folder).
  public var name: String
  /// The original's size in bytes.
  public var bytes: Int64
  public var format: ImageFormat
  /// Size in pixels as shown, after the EXIF orientation.
  public var width: Int
  public var height: Int
  /// The EXIF orientation, 1...8 (1 when none).
  public var orientation: Int
  /// The original file's modification time, restored on export.
  public var modifiedAt: Timestamp
  public var importedAt: Timestamp
  /// BLAKE2b-256 of the original, keyed with a key of the space's: finds duplicates without
  /// revealing anything to someone without the password. 64 lowercase hex digits.
  public var contentHash: String {
    get { hash.text }
    set { hash = ContentHash(newValue) }
  }
  /// The same, kept as bytes: a record decoded from the journal makes no text of it.
  var hash: ContentHash
  /// When the photo was taken, as its file says (EXIF `DateTimeOriginal`, PNG `eXIf` or
  /// `tIME`); nil when it does not say, or for a photo imported before vault read it and
  /// not yet filled in (`verify --repair`, or when it is first viewed).
  public var taken: CaptureTime? = nil
  /// The camera's make and model (EXIF `Make`, `Model`), when the file names them.
  public var cameraMake: String? = nil
  public var cameraModel: String? = nil
  /// A video's duration in microseconds, from its container; nil for a still.
  public var durationMicroseconds: Int64? = nil
  /// A video's codec, as FFmpeg names it (`h264`, `hevc`); nil for a still.
  public var codec: String? = nil

  /// Whether it is a photo or a video (its format says).
  public var kind: MediaKind { format.isVideo ? .video : .photo }
  /// A video's duration in seconds.
  public var duration: Double? { durationMicroseconds.map { Double($0) / 1_000_000 } }

  package init(
    id: BlobID, name: String, bytes: Int64, format: ImageFormat, width: Int, height: Int,
    orientation: Int,
    modifiedAt: Timestamp, importedAt: Timestamp, contentHash: String, taken: CaptureTime? = nil,
    cameraMake: String? = nil, cameraModel: String? = nil
  ) {
    self.init(
      id: id, name: name, bytes: bytes, format: format, width: width, height: height,
      orientation: orientation,
      modifiedAt: modifiedAt, importedAt: importedAt, hash: ContentHash(contentHash), taken: taken,
      cameraMake: cameraMake, cameraModel: cameraModel)
  }

  init(
    id: BlobID, name: String, bytes: Int64, format: ImageFormat, width: Int, height: Int,
    orientation: Int,
    modifiedAt: Timestamp, importedAt: Timestamp, hash: ContentHash, taken: CaptureTime? = nil,
    cameraMake: String? = nil, cameraModel: String? = nil
  ) {
    (self.id, self.name, self.bytes, self.format) = (id, name, bytes, format)
    (self.width, self.height, self.orientation) = (width, height, orientation)
    (self.modifiedAt, self.importedAt, self.hash) = (modifiedAt, importedAt, hash)
    (self.taken, self.cameraMake, self.cameraModel) = (taken, cameraMake, cameraModel)
  }
}

/// A record as JSON (in an original's blob, and in format 1's index): the keys and values
/// the synthesized coding wrote, the content hash as its hex text.
extension PhotoRecord: Codable {
  enum CodingKeys: String, CodingKey {
    case id, name, bytes, format, width, height, orientation, modifiedAt, importedAt, contentHash,
      taken,
      cameraMake, cameraModel, durationMicroseconds, codec
  }

  public init(from decoder: Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      id: try container.decode(BlobID.self, forKey: .id),
      name: try container.decode(String.self, forKey: .name),
      bytes: try container.decode(Int64.self, forKey: .bytes),
      format: try container.decode(ImageFormat.self, forKey: .format),
      width: try container.decode(Int.self, forKey: .width),
      height: try container.decode(Int.self, forKey: .height),
      orientation: try container.decode(Int.self, forKey: .orientation),
      modifiedAt: try container.decode(Timestamp.self, forKey: .modifiedAt),
      importedAt: try container.decode(Timestamp.self, forKey: .importedAt),
      contentHash: try container.decode(String.self, forKey: .contentHash),
      taken: try container.decodeIfPresent(CaptureTime.self, forKey: .taken),
      cameraMake: try container.decodeIfPresent(String.self, forKey: .cameraMake),
      cameraModel: try container.decodeIfPresent(String.self, forKey: .cameraModel))
    durationMicroseconds = try container.decodeIfPresent(Int64.self, forKey: .durationMicroseconds)
    codec = try container.decodeIfPresent(String.self, forKey: .codec)
  }

  public func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(name, forKey: .name)
    try container.encode(bytes, forKey: .bytes)
    try container.encode(format, forKey: .format)
    try container.encode(width, forKey: .width)
    try container.encode(height, forKey: .height)
    try container.encode(orientation, forKey: .orientation)
    try container.encode(modifiedAt, forKey: .modifiedAt)
    try container.encode(importedAt, forKey: .importedAt)
    try container.encode(contentHash, forKey: .contentHash)
    try container.encodeIfPresent(taken, forKey: .taken)
    try container.encodeIfPresent(cameraMake, forKey: .cameraMake)
    try container.encodeIfPresent(cameraModel, forKey: .cameraModel)
    try container.encodeIfPresent(durationMicroseconds, forKey: .durationMicroseconds)
    try container.encodeIfPresent(codec, forKey: .codec)
  }
}

/// The moment a photo was taken, as cameras record it: the wall-clock time of the camera's
/// clock and, when the file gives it (EXIF `OffsetTimeOriginal`), that clock's offset from
/// UTC. Without an offset the moment is read in the viewer's time zone.
public struct CaptureTime: Codable, Equatable, Hashable, Sendable {
  /// The camera's wall-clock time, as seconds since 1970 read as if it were UTC.
  public var localSeconds: Int64
  /// Sub-second part of the wall-clock time (EXIF `SubSecTimeOriginal`), 0 when none.
  public var nanoseconds: Int32
  /// Minutes east of UTC, when the file says.
  public var utcOffsetMinutes: Int16?

  public init(localSeconds: Int64, nanoseconds: Int32 = 0, utcOffsetMinutes: Int16? = nil) {
    self.localSeconds = localSeconds
    self.nanoseconds = nanoseconds
    self.utcOffsetMinutes = utcOffsetMinutes
  }

  /// The moment as seconds since 1970 UTC; without a recorded offset, `zone`'s offset at
  /// that wall-clock time is used.
  public func secondsSince1970(assuming zone: TimeZone = .current) -> Int64 {
    if let utcOffsetMinutes { return localSeconds - Int64(utcOffsetMinutes) * 60 }
    let guess = Date(timeIntervalSince1970: TimeInterval(localSeconds))
    return localSeconds - Int64(zone.secondsFromGMT(for: guess))
  }
}

/// What an item of a space is.
public enum MediaKind: String, Sendable {
  case photo
  case video
  /// A still and its MOV, one item (see `PhotoModel.motion`); a record alone is never one.
  case live
}

/// One line of the index: a record and whether the photo is selected.
public struct IndexEntry: Codable, Equatable, Sendable {
  public var record: PhotoRecord
  public var selected: Bool
}

/// The decrypted contents of a space's `index` blob, in import order.
struct SpaceIndex: Codable, Equatable {
  static let currentVersion = 1
  var version = SpaceIndex.currentVersion
  var photos: [IndexEntry] = []
}

extension SpaceIndex {
  /// The index of a space's entries (format 1 is written whole).
  init(photos: PhotoEntries) {
    self.init(photos: Array(photos))
  }
}
