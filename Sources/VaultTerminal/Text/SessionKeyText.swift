import VaultCore

/// How a session key's lifetime is worded.
public enum SessionKeyText {
  /// "kept until 2026-11-22 10:36:05, 15m after each use, at most until 2026-11-22 18:21:05".
  public static func lifetime(of key: SessionKey) -> String {
    var text = ""
    if let expires = key.expires { text += "kept until \(moment(expires)), " }
    return text
      + "\(IdleDuration.text(key.lifetime.idleSeconds)) after each use, at most until \(moment(key.lifetime.deadline))"
  }

  /// A local date and time to the second: short lifetimes end within a minute.
  static func moment(_ seconds: Int64) -> String {
    PhotoListing.localTime(Timestamp(seconds: seconds), format: "%Y-%m-%d %H:%M:%S")
  }
}
