import Foundation

/// What a photo's file says about where it comes from: when it was taken and with which
/// camera. Read at import (and for photos imported before vault read it, by `verify
/// --repair` or when the photo is first shown); stored in the record and, in the journal,
/// as a `details` entry. Every field is nil when the file does not say.
public struct PhotoDetails: Equatable, Hashable, Sendable {
  public var taken: CaptureTime?
  public var cameraMake: String?
  public var cameraModel: String?

  /// How much of a file too large to hold in memory is read for its details: EXIF sits in
  /// a JPEG's first segments and, in practice, before a PNG's image data.
  package static let prefixLength = 1 << 20

  public init(taken: CaptureTime? = nil, cameraMake: String? = nil, cameraModel: String? = nil) {
    self.taken = taken
    self.cameraMake = cameraMake
    self.cameraModel = cameraModel
  }

  /// The details a record holds.
  public init(of record: PhotoRecord) {
    self.init(taken: record.taken, cameraMake: record.cameraMake, cameraModel: record.cameraModel)
  }

  public var isEmpty: Bool { taken == nil && cameraMake == nil && cameraModel == nil }

  /// `record` with these details in place of its own.
  public func applied(to record: PhotoRecord) -> PhotoRecord {
    var record = record
    record.taken = taken
    record.cameraMake = cameraMake
    record.cameraModel = cameraModel
    return record
  }

  /// The most UTF-8 bytes of a make or model kept: real ones are a few words ("Canon",
  /// "Canon EOS R5"); a file may say anything.
  public static let textLimit = 64

  /// A make or model as EXIF stores it (ASCII, padded with NULs or spaces, sometimes
  /// UTF-8): up to its first NUL, spaces trimmed, invalid UTF-8 replaced, cut to
  /// `textLimit` bytes on a character boundary; nil when nothing is left. Control
  /// characters are kept as they are: whatever shows them escapes them (TerminalSafeText).
  static func cleanText(_ bytes: UnsafeRawBufferPointer) -> String? {
    let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
      .trimmingCharacters(in: .whitespaces)
    var kept = ""
    var length = 0
    for character in text {
      length += character.utf8.count
      if length > textLimit { break }
      kept.append(character)
    }
    kept = kept.trimmingCharacters(in: .whitespaces)
    return kept.isEmpty ? nil : kept
  }
}
