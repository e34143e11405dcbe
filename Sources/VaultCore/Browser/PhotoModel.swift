import Foundation

/// One photo as the browser sees it (Agony's SGPhotoModel): where its encrypted original
/// and thumbnail live, whether it is selected, and its decrypted record.
public struct PhotoModel: Equatable, Sendable {
  /// The encrypted original, `Photo/<id>`.
  public var photoURL: URL
  /// The encrypted thumbnail, `Thumb/<id>`.
  public var thumbURL: URL
  public var isSelected: Bool
  public var record: PhotoRecord

  public init(photoURL: URL, thumbURL: URL, isSelected: Bool, record: PhotoRecord) {
    self.photoURL = photoURL
    self.thumbURL = thumbURL
    self.isSelected = isSelected
    self.record = record
  }
}
