/// What a restore did.
public struct RestoreSummary: Sendable, Equatable {
  /// Files fetched from the remote, and their bytes.
  public var filesFetched = 0
  public var bytesFetched: Int64 = 0
  /// Files of the manifest checked (MD5 of the local bytes).
  public var filesChecked = 0
  /// Files that do not match the manifest after the restore, each with why.
  public var mismatches: [RestoreMismatch] = []
  /// Journal files the local vault has that differ from the backup's, left alone (`--missing`).
  public var journalFilesKept = 0
  /// Blobs the vault has that differ from the backup's and were left as they are
  /// (`--missing`): no key to tell which copy is damaged, or the vault's authenticates, or
  /// the backup's does not.
  public var differingBlobsKept: [String] = []
}

/// A restored file that does not match what the backup sent.
public struct RestoreMismatch: Sendable, Equatable, CustomStringConvertible {
  public let path: String
  public let reason: String

  public var description: String { "\(path): \(reason)" }
}
