import Foundation

/// What rclone writes on stderr, read line by line: its progress (`--use-json-log --stats`)
/// and its last meaningful error, which becomes the one line vault shows.
struct RcloneLog {
  /// The last error rclone reported, reworded to its reason.
  private(set) var lastError: String?
  /// The last line that was not progress, as a reason when no error line came.
  private(set) var lastLine: String?
  /// The last progress seen.
  private(set) var progress: RcloneProgress?
  /// The files rclone said it copied or moved (`Copied (new)`, `Moved (server-side)`…), by
  /// path relative to the source, as they came.
  private(set) var transferred: [String] = []

  /// Reads one line; returns the progress it carries, if it is a stats line.
  mutating func take(_ line: String) -> RcloneProgress? {
    let text = line.trimmingCharacters(in: .whitespaces)
    guard !text.isEmpty else { return nil }
    if text.hasPrefix("{"), let fields = Self.json(text) {
      if let progress = RcloneProgress(statsOf: fields) {
        self.progress = progress
        return progress
      }
      takeJSON(fields)
      return nil
    }
    takePlain(Self.withoutTimestamp(text))
    return nil
  }

  private mutating func takeJSON(_ fields: [String: Any]) {
    guard let message = fields["msg"] as? String else { return }
    let object = (fields["object"] as? String) ?? ""
    let text = object.isEmpty ? message : object + ": " + message
    lastLine = text
    if !object.isEmpty, message.hasPrefix("Copied") || message.hasPrefix("Moved") {
      transferred.append(object)
    }
    if let level = fields["level"] as? String, level == "error" || level == "critical" {
      lastError = Self.reason(text)
    }
  }

  private mutating func takePlain(_ text: String) {
    for level in ["ERROR : ", "CRITICAL: "] where text.hasPrefix(level) {
      lastError = Self.reason(String(text.dropFirst(level.count)))
      lastLine = lastError
      return
    }
    if text.hasPrefix("Failed to ") {
      lastError = Self.reason(text)
      lastLine = lastError
      return
    }
    // NOTICE, INFO and DEBUG lines say nothing about a failure.
    if ["NOTICE:", "INFO  :", "DEBUG :"].contains(where: text.hasPrefix) { return }
    lastLine = text
  }

  /// The reason in rclone's wording of a failure: `Failed to create file system for "R":
  /// couldn't connect SSH: …` says `couldn't connect SSH: …`.
  static func reason(_ text: String) -> String {
    if let range = text.range(of: "last error was: ") { return String(text[range.upperBound...]) }
    guard text.hasPrefix("Failed to ") else { return text }
    if text.hasPrefix("Failed to create file system for \""), let end = text.range(of: "\": ") {
      return String(text[end.upperBound...])
    }
    guard let colon = text.range(of: ": ") else { return text }
    return String(text[colon.upperBound...])
  }

  /// `2026/11/29 07:06:45 ERROR : …` without its date and time.
  private static func withoutTimestamp(_ text: String) -> String {
    let bytes = Array(text.utf8)
    let pattern = Array("0000/00/00 00:00:00 ".utf8)
    guard bytes.count > pattern.count else { return text }
    for (byte, expected) in zip(bytes, pattern) {
      let matches =
        expected == UInt8(ascii: "0")
        ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == expected
      if !matches { return text }
    }
    return String(decoding: bytes[pattern.count...], as: UTF8.self)
  }

  private static func json(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
  }
}
