/// One photo as the browser sees it (Agony's SGPhotoModel): its decrypted record and
/// whether it is selected. It carries no path: the original and the thumbnail are read
/// through the browser's loaders, by index.
public struct PhotoModel: Equatable, Sendable {
  public var isSelected: Bool
  public var record: PhotoRecord

  public init(isSelected: Bool, record: PhotoRecord) {
    self.isSelected = isSelected
    self.record = record
  }
}
