import Foundation

/// What a backup or restore is doing, told as it goes.
public enum TransferStage: Sendable, Equatable {
  /// Reading the vault and listing the remote.
  case preparing
  /// Sending (or fetching) files: rclone's latest stats.
  case transferring(RcloneProgress)
  /// Journal and key files, removals, the manifest: small and quick.
  case finishing
}

/// What one backup did.
public struct BackupSummary: Sendable, Equatable {
  /// Files sent (blobs, journal and key files) and their bytes.
  public var filesSent = 0
  public var bytesSent: Int64 = 0
  /// Files this backup moved aside to `removed/`, and until when they are kept there.
  public var filesRemoved = 0
  public var keptUntil: Date?
  /// Folders of `removed/` purged because their grace period was over.
  public var foldersPurged = 0
  /// Files in `current/` once the backup was complete.
  public var filesOnRemote = 0
}
