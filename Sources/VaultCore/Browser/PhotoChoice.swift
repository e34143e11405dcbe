/// Which photos a batch command acts on.
public enum PhotoChoice: Equatable, Sendable {
  /// Photos named by number, range or id.
  case photos([PhotoSelector.Term])
  /// The selected photos.
  case selected
  /// Every photo.
  case all
}
