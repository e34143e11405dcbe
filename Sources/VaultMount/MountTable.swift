import Foundation

/// The mounts of this process's namespace, as /proc/self/mountinfo lists them.
public enum MountTable {
  /// The file system type of vault's mounts.
  public static let type = "fuse.vault"

  /// Whether `path` (absolute, without links) is where a vault mount is, on top: mounts
  /// stacked on one folder are listed in the order they were made, and an unmount takes the
  /// last, so a vault mount under another one is not what an unmount would take down.
  public static func hasVaultMount(at path: String) -> Bool {
    mounts().last { $0.point == path }?.type == type
  }

  /// Each mount's point and type.
  public static func mounts() -> [(point: String, type: String)] {
    guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line in
      let fields = line.split(separator: " ", omittingEmptySubsequences: false)
      guard fields.count > 4, let dash = fields.firstIndex(of: "-"), dash + 1 < fields.count else {
        return nil
      }
      return (unescaped(fields[4]), String(fields[dash + 1]))
    }
  }

  /// The kernel writes a space, tab, line break or backslash in a path as \ooo.
  private static func unescaped(_ field: Substring) -> String {
    var bytes: [UInt8] = []
    var utf8 = Array(field.utf8)[...]
    while let byte = utf8.popFirst() {
      if byte == UInt8(ascii: "\\"), utf8.count >= 3,
        let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8)
      {
        bytes.append(value)
        utf8 = utf8.dropFirst(3)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
