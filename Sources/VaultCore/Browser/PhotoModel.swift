/// One photo as the browser sees it (Agony's SGPhotoModel): its decrypted record, whether
/// it is selected, and the albums it is in. It carries no path: the original and the
/// thumbnail are read through the browser's loaders, by index.
public struct PhotoModel: Equatable, Sendable {
  public var isSelected: Bool
  public var record: PhotoRecord
  /// The names of the albums holding the photo, in name order.
  public var albums: [String]

  public init(isSelected: Bool, record: PhotoRecord, albums: [String] = []) {
    self.isSelected = isSelected
    self.record = record
    self.albums = albums
  }
}
