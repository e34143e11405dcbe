/// What the last complete backup put in a remote's `current/`: for each file (by path
/// relative to the vault folder) its size and the MD5 vault computed of the bytes it sent,
/// so that a remote can be checked against the backend's own hashes without a download.
/// Written as text, one line a file, in path order: `<size> <md5 hex or -> <path>`.
public struct BackupManifest: Equatable, Sendable {
  public struct Entry: Equatable, Sendable {
    public var size: Int64
    /// Nil where no hash is known (written `-`).
    public var md5: String?

    public init(size: Int64, md5: String?) {
      self.size = size
      self.md5 = md5
    }
  }

  public var entries: [String: Entry]

  public init(entries: [String: Entry] = [:]) {
    self.entries = entries
  }

  /// Reads a manifest's text; `source` names it in the error a malformed line gives.
  init(text bytes: [UInt8], source: String) throws {
    entries = [:]
    for (number, line) in bytes.split(separator: UInt8(ascii: "\n")).enumerated() {
      let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
      guard fields.count == 3, let size = Int64(String(decoding: fields[0], as: UTF8.self)), size >= 0,
        let md5 = Self.md5(fields[1]), !fields[2].isEmpty
      else {
        throw VaultError.io(path: source, reason: "line \(number + 1) is not '<size> <md5> <path>'")
      }
      let path = String(decoding: fields[2], as: UTF8.self)
      guard VaultLayoutPath.isValid(path) else {
        throw VaultError.io(path: source, reason: "line \(number + 1) names no file of a vault")
      }
      entries[path] = Entry(size: size, md5: md5)
    }
  }

  /// The text: one line a file, in path order.
  func encoded() -> [UInt8] {
    var text = ""
    for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
      text += "\(entry.size) \(entry.md5 ?? "-") \(path)\n"
    }
    return Array(text.utf8)
  }

  /// An MD5 field: 32 lowercase hex digits, or `-` (as `.some(nil)`); nil when malformed.
  private static func md5(_ field: ArraySlice<UInt8>) -> String?? {
    if field.elementsEqual("-".utf8) { return .some(nil) }
    guard field.count == 32, field.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
      return nil
    }
    return .some(String(decoding: field, as: UTF8.self))
  }
}
