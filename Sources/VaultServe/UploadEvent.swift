/// What happened to one upload, as the terminal reports it.
public enum UploadEvent: Equatable, Sendable {
  case added(name: String, bytes: Int)
  /// `of`: the item it duplicates, as `DuplicatedItem` names it.
  case duplicate(name: String, of: String? = nil)
  case refused(name: String, reason: String)
  /// The connection ended (or stalled) before all `length` bytes arrived.
  case incomplete(name: String, received: Int, length: Int)

  /// The line `vault serve` prints for it (the caller escapes control characters).
  public var line: String {
    switch self {
    case .added(let name, let bytes):
      return "added \(name) (\(Self.megabytes(bytes)) MB)"
    case .duplicate(let name, let item):
      return "already in the vault: \(name)" + (item.map { " as \($0)" } ?? "")
    case .refused(let name, let reason):
      return "refused \(name): \(reason)"
    case .incomplete(let name, let received, let length):
      return
        "incomplete: \(name) (connection closed after \(Self.megabytes(received)) of \(Self.megabytes(length)) MB)"
    }
  }

  /// Decimal megabytes with one digit after the point, as the file's size is shown on a
  /// phone.
  static func megabytes(_ bytes: Int) -> String {
    let tenths = (bytes + 50_000) / 100_000
    return "\(tenths / 10).\(tenths % 10)"
  }
}
