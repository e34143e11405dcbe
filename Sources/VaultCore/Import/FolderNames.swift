import Foundation

/// The names in a folder an import walks, read as bytes. A name that is not valid UTF-8
/// cannot become a Swift String without changing (and would then name another file, or
/// none, and could not be a photo's name in the journal), so it comes back apart, escaped,
/// for the import to name as a failure rather than pass over in silence.
struct FolderNames {
  var names: [String] = []
  /// The names that are not UTF-8, each with its invalid bytes written `\xNN`.
  var undecodable: [String] = []

  init(folder: String) throws {
    guard let directory = opendir(folder) else { throw VaultError.posix(folder) }
    defer { closedir(directory) }
    while true {
      errno = 0
      guard let entry = readdir(directory) else {
        if errno != 0 { throw VaultError.posix(folder) }
        return
      }
      let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
      if let name = String(validating: bytes, as: UTF8.self) {
        if name != "." && name != ".." { names.append(name) }
      } else {
        undecodable.append(Self.escaped(bytes))
      }
    }
  }

  /// `bytes` as text: its valid UTF-8 as it is, each other byte as `\xNN`.
  static func escaped(_ bytes: [UInt8]) -> String {
    var text = ""
    var start = 0
    while start < bytes.count {
      // The shortest run from `start` that decodes (a scalar is at most 4 bytes).
      let decoded = (1...min(4, bytes.count - start)).lazy.compactMap { length in
        String(validating: bytes[start..<start + length], as: UTF8.self).map { ($0, length) }
      }.first
      if let (scalar, length) = decoded {
        text += scalar
        start += length
      } else {
        text += "\\x" + String(format: "%02x", bytes[start])
        start += 1
      }
    }
    return text
  }
}
