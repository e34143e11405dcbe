import Foundation

/// One photo as the browser sees it (Agony's SGPhotoModel): its decrypted record, where
/// its encrypted original and thumbnail lie on disk, whether it is selected, and the
/// albums it is in. The locations are for showing and counting (`vault info` sums the
/// blobs' sizes from them); the bytes are read through the browser's loaders, which take
/// the record, so that a blob is only ever opened under a name made from its id.
public struct PhotoModel: Equatable, Sendable {
  public var record: PhotoRecord
  /// The encrypted original (`Photo/<id>` in the space's folder).
  public var photoURL: URL
  /// The encrypted thumbnail (`Thumb/<id>` in the space's folder).
  public var thumbURL: URL
  public var isSelected: Bool
  /// The names of the albums holding the photo, in name order.
  public var albums: [String]

  public init(record: PhotoRecord, photoURL: URL, thumbURL: URL, isSelected: Bool, albums: [String] = []) {
    self.record = record
    self.photoURL = photoURL
    self.thumbURL = thumbURL
    self.isSelected = isSelected
    self.albums = albums
  }

  /// A photo whose blobs are named only relative to its space's folder (`Photo/<id>`,
  /// `Thumb/<id>`, URLs without a base): what `Space.model(at:)` makes, which has no
  /// folder at hand. The browser's data source hands out models with whole locations
  /// (`Space.photoModel(at:)`).
  init(isSelected: Bool, record: PhotoRecord, albums: [String] = []) {
    self.init(
      record: record, photoURL: URL(string: "Photo/" + record.id.hex)!,
      thumbURL: URL(string: "Thumb/" + record.id.hex)!, isSelected: isSelected, albums: albums)
  }
}
