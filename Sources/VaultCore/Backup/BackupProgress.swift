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
  /// Blobs of the vault whose size differs from the whole copy the backup holds (blobs
  /// never change once written: the vault's copy is damaged, or was changed by someone):
  /// not sent, the backup's copy kept. By path relative to the vault folder.
  public var filesAltered: [String] = []
  /// Folders of `removed/` purged because their grace period was over.
  public var foldersPurged = 0
  /// Originals offloaded to another remote (their stub here, no copy on this one): not in
  /// this backup, so left out of its manifest (a check or restore of it would else call
  /// them missing).
  public var offloadedElsewhere = 0
  /// Files in `current/` once the backup was complete.
  public var filesOnRemote = 0
}
