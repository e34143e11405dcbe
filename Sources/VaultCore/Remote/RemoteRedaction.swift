/// A remote as vault's messages show it: the values of the secret parameters of an rclone
/// connection string (`:sftp,host=h,pass=X:path`, `name,token="a,b":path`) replaced by
/// `***`, so that no password or token reaches a terminal, a log or a cron mail. Every
/// message that names a remote, and rclone's error lines (which may quote it), go through it.
public enum RemoteRedaction {
  /// A parameter whose name contains one of these holds a secret (`pass`, `password`,
  /// `key`, `key_file_pass`, `secret_access_key`, `token`, `client_secret`, `sas_url`…).
  static let secretWords = ["pass", "key", "secret", "token", "auth", "cred", "sas", "cookie", "session"]
  static let mask = "***"

  /// `text` with the value of every secret `,name=value` parameter masked; the rest as it is.
  public static func redacted(_ text: String) -> String {
    let characters = Array(text)
    var result = ""
    var index = 0
    while index < characters.count {
      let character = characters[index]
      result.append(character)
      index += 1
      guard character == ",", let (name, valueStart) = parameterName(in: characters, from: index) else {
        continue
      }
      result += name + "="
      index = valueStart
      guard isSecret(name) else { continue }
      result += mask
      index = valueEnd(in: characters, from: valueStart)
    }
    return result
  }

  /// The parameter name that starts at `start` (up to its `=`) and where its value begins;
  /// nil when no `name=` starts there.
  private static func parameterName(in characters: [Character], from start: Int) -> (String, Int)? {
    var index = start
    while index < characters.count,
      characters[index].isLetter || characters[index].isNumber
        || characters[index] == "_" || characters[index] == "-"
    {
      index += 1
    }
    guard index > start, index < characters.count, characters[index] == "=" else { return nil }
    return (String(characters[start..<index]), index + 1)
  }

  /// Where a value that starts at `start` ends: at its closing quote (a doubled quote is
  /// one quote inside it) when quoted, else at the next `,` or `:`.
  private static func valueEnd(in characters: [Character], from start: Int) -> Int {
    guard start < characters.count, characters[start] == "\"" || characters[start] == "'" else {
      var index = start
      while index < characters.count, characters[index] != ",", characters[index] != ":" { index += 1 }
      return index
    }
    let quote = characters[start]
    var index = start + 1
    while index < characters.count {
      if characters[index] == quote {
        guard index + 1 < characters.count, characters[index + 1] == quote else { return index + 1 }
        index += 1
      }
      index += 1
    }
    return index
  }

  /// A `…_file` parameter names where a secret is (`key_file`), not the secret: it stays.
  private static func isSecret(_ name: String) -> Bool {
    let lowered = name.lowercased()
    return !lowered.hasSuffix("_file") && secretWords.contains { lowered.contains($0) }
  }
}
