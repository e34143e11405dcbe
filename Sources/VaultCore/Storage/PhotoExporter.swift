import Foundation

/// What happened to one photo of an export.
public enum ExportEvent: Sendable {
  /// The file is complete, verified and under its final name.
  case exported(name: String, path: String)
  /// Nothing was left behind for this photo.
  case failed(name: String, error: VaultError)
}

/// Decrypts originals (or thumbnails) into a folder. Each file is written under a
/// temporary name, checked to the final chunk and its content hash, and only then given
/// its name; names already taken get " (1)", " (2)"…; nothing is ever overwritten.
public final class PhotoExporter {
  private let space: Space

  public init(space: Space) {
    self.space = space
  }

  /// Exports `photos` into `directory` (which must exist), reporting each in order.
  /// Returns the number exported, and whether `interruption` stopped the export before
  /// the last photo (the photo in hand is finished first; those not reached are not
  /// reported).
  @discardableResult
  public func export(
    _ photos: [PhotoModel], to directory: String, thumbnails: Bool, interruption: Interruption? = nil,
    report: (ExportEvent) -> Void
  ) -> (exported: Int, interrupted: Bool) {
    var exported = 0
    for photo in photos {
      if interruption?.isRequested == true { return (exported, true) }
      let record = photo.record
      do {
        let path = try exportOne(record, to: directory, thumbnails: thumbnails)
        exported += 1
        report(.exported(name: record.name, path: path))
      } catch let error as VaultError {
        report(.failed(name: record.name, error: error))
      } catch {
        report(.failed(name: record.name, error: .io(path: directory, reason: "\(error)")))
      }
    }
    return (exported, false)
  }

  private func exportOne(_ record: PhotoRecord, to directory: String, thumbnails: Bool) throws -> String {
    // Unnamed until complete: an export that is killed leaves nothing in the folder.
    let file = try TemporaryFile(in: directory, unnamed: true)
    var name = Self.safeName(record.name)
    if thumbnails {
      var bytes = try space.thumbnail(of: record)
      defer { bytes.wipe() }
      try file.write(bytes)
      name = (name as NSString).deletingPathExtension + ".jpg"
    } else {
      let reader = try space.openOriginal(record)
      try reader.readContent { try file.write($0) }
    }
    try file.setModificationTime(
      seconds: record.modifiedAt.seconds, nanoseconds: record.modifiedAt.nanoseconds)
    for attempt in 0... {
      let candidate = directory + "/" + Self.numberedName(name, attempt)
      if try file.moveWithoutReplacing(to: candidate) {
        try syncDirectory(directory)
        return candidate
      }
    }
    fatalError("unreachable")
  }

  /// A file name that stays inside the target folder. The name comes from a record, so it
  /// is cleaned scalar by scalar: a "/" inside a grapheme cluster ("/" + a combining mark,
  /// or after a prepended mark) is not a "/" Character, but it is still a "/" byte.
  static func safeName(_ name: String) -> String {
    var scalars = String.UnicodeScalarView()
    scalars.append(contentsOf: name.unicodeScalars.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
    let cleaned = String(scalars)
    if cleaned.isEmpty || cleaned == "." || cleaned == ".." { return "photo" }
    return cleaned
  }

  /// `IMG.jpg`, then `IMG (1).jpg`, `IMG (2).jpg`…
  static func numberedName(_ name: String, _ number: Int) -> String {
    guard number > 0 else { return name }
    let base = (name as NSString).deletingPathExtension
    let ext = (name as NSString).pathExtension
    let stem = base.isEmpty ? name : base
    return ext.isEmpty || base.isEmpty ? "\(stem) (\(number))" : "\(stem) (\(number)).\(ext)"
  }
}
