/// What `offload` did: the photos whose originals left the disk, those that had already,
/// and those that failed, each with its error; and how many blobs it sent.
public struct OffloadOutcome {
  public var offloaded: [PhotoRecord] = []
  public var alreadyRemote: [PhotoRecord] = []
  public var failed: [(record: PhotoRecord, error: Error)] = []
  /// Blobs the remote lacked, sent by this run.
  public var sent = 0
}
