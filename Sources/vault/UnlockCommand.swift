import ArgumentParser
import Foundation
import VaultCore
import VaultServe

struct UnlockCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "unlock",
    abstract: "Keep the space's key for this login session, so that commands need no password.",
    discussion: """
      Derives the key once and keeps the space's key (never the password) in the kernel's \
      session keyring, readable only by the processes of this login session, until --for \
      after its last use and never past --max. Commands then open that space without a \
      prompt and without the key derivation; --password-file and VAULT_PASSWORD still open \
      the space they name. One space per vault is unlocked at a time: unlocking another \
      replaces it. 'vault lock' drops the key at once. While it is kept, anyone who can act \
      as you in this session, or read its memory, can open the space.
      """)

  @OptionGroup var options: VaultOptions

  @Option(
    name: .customLong("for"),
    help: ArgumentHelp("Keep the key this long after each use: 90s, 15m, 2h.", valueName: "duration"))
  var idle = "15m"

  @Option(
    help: ArgumentHelp("Drop it this long after unlocking, however often it is used.", valueName: "duration"))
  var max = "8h"

  func validate() throws {
    let longest = SessionLifetime.longestSeconds
    guard let idleSeconds = Self.seconds(idle) else {
      throw ValidationError("--for must be a duration such as 90s, 15m or 2h ('\(idle)' is not).")
    }
    guard let maxSeconds = Self.seconds(max) else {
      throw ValidationError("--max must be a duration such as 90s, 15m or 8h ('\(max)' is not).")
    }
    if idleSeconds > maxSeconds { throw ValidationError("--for cannot be longer than --max.") }
    if maxSeconds > longest { throw ValidationError("--max can be at most \(longest / 3600)h (7 days).") }
  }

  /// Whole seconds of a duration, at least one; nil when it does not parse.
  static func seconds(_ text: String) -> Int? {
    guard let seconds = IdleDuration.seconds(text), seconds >= 1 else { return nil }
    return Int(seconds)
  }

  func run() throws {
    let vault = try options.openVault()
    // Checked before the password is asked for: without a keyring it would be asked for nothing.
    try SessionKeyring.checkAvailable()
    let space = try vault.unlock(password: try options.password(), access: .read)
    let lifetime = SessionLifetime(idleSeconds: Self.seconds(idle)!, maximumSeconds: Self.seconds(max)!)
    let key = try SessionKeyring.store(space, of: vault, lifetime: lifetime)
    printLine("unlocked: \(SessionKeyText.lifetime(of: key))")
    if SessionKeyring.isUserDefaultSession {
      Diagnostics.warning(
        "this login has no session keyring of its own: the key is kept in your user's default one, which all your processes without one share"
      )
    }
  }
}

/// How the CLI words a session key's lifetime.
enum SessionKeyText {
  /// "kept until 2026-11-22 10:36:05, 15m after each use, at most until 2026-11-22 18:21:05".
  static func lifetime(of key: SessionKey) -> String {
    var text = ""
    if let expires = key.expires { text += "kept until \(moment(expires)), " }
    return text
      + "\(duration(key.lifetime.idleSeconds)) after each use, at most until \(moment(key.lifetime.deadline))"
  }

  /// A local date and time to the second: short lifetimes end within a minute.
  static func moment(_ seconds: Int64) -> String {
    var time = time_t(seconds)
    var parts = tm()
    localtime_r(&time, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M:%S", &parts)
    return String(cString: buffer)
  }

  /// 45s, 15m, 8h, 1h30m: as --for and --max take them, when they are whole.
  static func duration(_ seconds: Int) -> String {
    if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
    if seconds % 60 == 0 {
      return seconds > 3600 ? "\(seconds / 3600)h\(seconds % 3600 / 60)m" : "\(seconds / 60)m"
    }
    return "\(seconds)s"
  }
}
