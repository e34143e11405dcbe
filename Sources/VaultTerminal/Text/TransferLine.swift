import VaultCore

/// The progress line of a backup or restore: `sending 12.4 MB of 80.0 MB, 3 of 20 files,
/// 4.1 MB/s, 17 s left`, cut to the terminal's width.
public enum TransferLine {
  public static func text(_ progress: RcloneProgress, label: String, columns: Int) -> String {
    var parts = [
      "\(label) \(PhotoListing.byteCount(progress.bytes)) of \(PhotoListing.byteCount(progress.totalBytes))",
      "\(progress.transfers) of \(progress.totalTransfers) file\(progress.totalTransfers == 1 ? "" : "s")",
    ]
    if progress.bytesPerSecond > 0 {
      parts.append(PhotoListing.byteCount(Int64(progress.bytesPerSecond)) + "/s")
    }
    if let left = progress.secondsLeft, left > 0 { parts.append(ClockDuration.text(Double(left)) + " left") }
    return DisplayWidth.truncate(parts.joined(separator: ", "), to: max(0, columns - 1))
  }
}
