import Foundation

/// Where an rclone transfer stands, from one of its `--stats` lines.
public struct RcloneProgress: Equatable, Sendable {
  /// Bytes sent so far, and in all (as far as rclone knows yet).
  public var bytes: Int64
  public var totalBytes: Int64
  /// Files sent so far, and in all.
  public var transfers: Int
  public var totalTransfers: Int
  /// Files compared, renamed (a server-side move) and deleted so far.
  public var checks: Int
  public var renames: Int
  public var deletes: Int
  /// Bytes a second lately.
  public var bytesPerSecond: Double
  /// Seconds left, when rclone can tell.
  public var secondsLeft: Int?

  public init(
    bytes: Int64 = 0, totalBytes: Int64 = 0, transfers: Int = 0, totalTransfers: Int = 0, checks: Int = 0,
    renames: Int = 0, deletes: Int = 0, bytesPerSecond: Double = 0, secondsLeft: Int? = nil
  ) {
    self.bytes = bytes
    self.totalBytes = totalBytes
    self.transfers = transfers
    self.totalTransfers = totalTransfers
    self.checks = checks
    self.renames = renames
    self.deletes = deletes
    self.bytesPerSecond = bytesPerSecond
    self.secondsLeft = secondsLeft
  }

  /// The progress in the `stats` object of a `--use-json-log` line; nil for another line.
  init?(statsOf fields: [String: Any]) {
    guard let stats = fields["stats"] as? [String: Any] else { return nil }
    func integer(_ name: String) -> Int64 { (stats[name] as? NSNumber)?.int64Value ?? 0 }
    self.init(
      bytes: integer("bytes"), totalBytes: integer("totalBytes"), transfers: Int(integer("transfers")),
      totalTransfers: Int(integer("totalTransfers")), checks: Int(integer("checks")),
      renames: Int(integer("renames")), deletes: Int(integer("deletes")),
      bytesPerSecond: (stats["speed"] as? NSNumber)?.doubleValue ?? 0,
      secondsLeft: (stats["eta"] as? NSNumber)?.intValue)
  }

  /// Whether anything moved since `earlier`: the watchdog's sign of life.
  func advanced(since earlier: RcloneProgress?) -> Bool {
    guard let earlier else { return true }
    return bytes != earlier.bytes || transfers != earlier.transfers || checks != earlier.checks
      || renames != earlier.renames || deletes != earlier.deletes || totalTransfers != earlier.totalTransfers
  }
}
