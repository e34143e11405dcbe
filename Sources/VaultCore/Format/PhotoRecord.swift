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
public struct PhotoRecord: Codable, Equatable, Sendable {
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
  /// revealing anything to someone without the password.
  public var contentHash: String
  /// When the photo was taken, as its file says (EXIF `DateTimeOriginal`, PNG `eXIf` or
  /// `tIME`); nil when it does not say, or for a photo imported before vault read it and
  /// not yet filled in (`verify --repair`, or when it is first viewed).
  public var taken: CaptureTime? = nil
  /// The camera's make and model (EXIF `Make`, `Model`), when the file names them.
  public var cameraMake: String? = nil
  public var cameraModel: String? = nil
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
