import Foundation

/// One photo as the browser sees it (Agony's SGPhotoModel): its decrypted record, where
/// its encrypted original and thumbnail lie on disk, whether it is selected, and the
/// albums it is in. The locations are for showing and counting (`vault info` sums the
/// blobs' sizes from them); the bytes are read through the browser's loaders, which take
/// the record, so that a blob is only ever opened under a name made from its id.
public struct PhotoModel: Equatable, Sendable {
  public var record: PhotoRecord
  public var isSelected: Bool
  /// The names of the albums holding the photo, in name order.
  public var albums: [String]
  /// A Live Photo's MOV, listed under its still (this record); nil for anything else.
  public var motion: PhotoRecord? = nil
  private var blobs: BlobLocations

  /// A photo, a video, or a Live Photo (a still with its `motion`).
  public var kind: MediaKind { motion == nil ? record.kind : .live }

  /// The encrypted original (`Photo/<id>` in its space's folder).
  public var photoURL: URL { blobs.url(photo: true, id: record.id) }
  /// The encrypted thumbnail (`Thumb/<id>` in its space's folder).
  public var thumbURL: URL { blobs.url(photo: false, id: record.id) }
  /// A Live Photo's encrypted MOV, beside its still's original.
  public var motionPhotoURL: URL? { motion.flatMap { blobs.otherURL(photo: true, id: $0.id) } }
  /// A Live Photo's MOV's encrypted thumbnail.
  public var motionThumbURL: URL? { motion.flatMap { blobs.otherURL(photo: false, id: $0.id) } }

  public init(record: PhotoRecord, photoURL: URL, thumbURL: URL, isSelected: Bool, albums: [String] = []) {
    self.init(
      record: record, blobs: .given(photo: photoURL, thumb: thumbURL), isSelected: isSelected, albums: albums)
  }

  /// A photo whose blobs lie in `folders` under its id: their URLs are made only when asked
  /// for, since a count or a selection over a big space makes a model of every photo.
  init(record: PhotoRecord, folders: BlobFolders, isSelected: Bool, albums: [String]) {
    self.init(
      record: record, blobs: .folders(photo: folders.photo, thumb: folders.thumb), isSelected: isSelected,
      albums: albums)
  }

  /// A photo whose blobs are named only relative to a space's folder (`Photo/<id>`,
  /// `Thumb/<id>`, URLs without a base): for the hand-made data sources of tests, which
  /// have no folder. A space's data source hands out models with whole locations
  /// (`SpaceCatalog.item(at:)`).
  init(isSelected: Bool, record: PhotoRecord, albums: [String] = []) {
    self.init(record: record, blobs: .relative, isSelected: isSelected, albums: albums)
  }

  private init(record: PhotoRecord, blobs: BlobLocations, isSelected: Bool, albums: [String]) {
    self.record = record
    self.blobs = blobs
    self.isSelected = isSelected
    self.albums = albums
  }

  /// Where a photo's blobs lie.
  private enum BlobLocations: Equatable, Sendable {
    case given(photo: URL, thumb: URL)
    case folders(photo: String, thumb: String)
    case relative

    func url(photo: Bool, id: BlobID) -> URL {
      switch self {
      case .given(let photoURL, let thumbURL): return photo ? photoURL : thumbURL
      case .folders(let photoFolder, let thumbFolder):
        return URL(fileURLWithPath: (photo ? photoFolder : thumbFolder) + "/" + id.hex, isDirectory: false)
      case .relative: return URL(string: (photo ? "Photo/" : "Thumb/") + id.hex)!
      }
    }

    /// The location of another file of the item (a Live Photo's MOV): nil when only the
    /// item's own were given.
    func otherURL(photo: Bool, id: BlobID) -> URL? {
      if case .given = self { return nil }
      return url(photo: photo, id: id)
    }
  }
}
