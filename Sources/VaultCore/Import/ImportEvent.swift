/// What happened to one file of an import, reported in the order the files were given.
public enum ImportEvent: Sendable {
  /// The photo is stored and listed; reported only once the index holding it is on disk.
  case added(path: String, record: PhotoRecord)
  /// The space already holds a photo with the same content (its content hash given, so
  /// that the photo can be found after `--move` removed the file).
  case duplicate(path: String, contentHash: String)
  /// The photo became one Live Photo with `mate`, a half the space held before this
  /// import (they share Apple's content identifier); a still named as its MOV takes the MOV
  /// from `displaced`, the still it was paired with (see `LivePairs`). Reported after its
  /// `added`.
  case paired(path: String, record: PhotoRecord, mate: PhotoRecord, displaced: PhotoRecord?)
  /// The photo, a still, carries the identifier of `motion`, a Live Photo's MOV the space
  /// held before this import, which stays paired with `still`: the photo is a photo of its
  /// own. Reported after its `added`.
  case livePairKept(path: String, record: PhotoRecord, motion: PhotoRecord, still: PhotoRecord)
  /// The file was not imported.
  case failed(path: String, error: VaultError)
  /// The photo was imported, but its decoder complained (e.g. premature end of data).
  case warning(path: String, message: String)
  /// A file found in a folder is not a photo vault imports (a README, a video): it is
  /// passed over, not counted as a failure.
  case skipped(path: String, reason: VaultError)
  /// Moving: the source of a photo the space holds (added or a duplicate) was removed, once
  /// the space's copy read back intact (see `SourceRemoval`). Reported after its `added`
  /// or `duplicate`.
  case sourceRemoved(path: String)
  /// Moving: the photo is in the space, but its source file stays, for this reason.
  case sourceKept(path: String, reason: VaultError)
}

extension ImportEvent {
  /// The file the event is about, as it was given.
  public var path: String {
    switch self {
    case .added(let path, _), .duplicate(let path, _), .failed(let path, _), .warning(let path, _),
      .skipped(let path, _), .sourceRemoved(let path), .sourceKept(let path, _), .paired(let path, _, _, _),
      .livePairKept(let path, _, _, _):
      return path
    }
  }
}
