/// What `vault verify --repair` did.
public struct RepairSummary: Equatable, Sendable {
  public var indexRebuilt = false
  /// How many photos the rebuilt index lists.
  public var rebuiltCount = 0
  public var selectionLost = false
  /// The journal was gone, not damaged: the rebuilt space lists the intact originals, but
  /// its albums, its selection and its deletions could not be recovered (a deleted photo
  /// whose original was left comes back). It is not the space as it was.
  public var journalLost = false
  public var adopted: [String] = []
  /// The items brought back from Recently Deleted because the rebuilt journal dropped
  /// records it could not read, a restore among them maybe: keeping beats deleting for good.
  public var restoredFromTrash: [String] = []
  public var droppedMissing: [String] = []
  /// Photos whose original is missing, left listed (format 2): only a deletion removes them.
  public var keptMissing: [PhotoRecord] = []
  public var duplicatesDropped = 0
  public var thumbnailsRemade: [String] = []
  public var thumbnailsNotRemade: [String] = []
  public var removedFiles: [String] = []
  /// Damaged originals, left where they are for the user.
  public var damagedOriginals: [String] = []
  /// Photos imported before vault read the date taken and camera from their files, whose
  /// files were read for them now; `datesFound` of them gave a date.
  public var detailsRead = 0
  public var datesFound = 0
  /// Set when an interruption stopped the repair early.
  public var interruption: RepairInterruption?
}
