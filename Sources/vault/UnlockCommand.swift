import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

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
      replaces it. 'vault lock' drops the key at once (a running 'vault serve' or 'vault \
      view' keeps its own copy until it ends). While it is kept, anyone who can act as you \
      in this session (any process that shares its session keyring, whatever user it runs \
      as), or read its memory, can open the space. A login without a session keyring of \
      its own is refused unless --shared-keyring.
      """)

  @OptionGroup var options: VaultOptions

  @Option(
    name: .customLong("for"),
    help: ArgumentHelp(
      "Keep the key this long after each use: 90s, 15m, 2h (default: 15m, or --max if that is shorter).",
      valueName: "duration"))
  var idle: String?

  @Option(
    help: ArgumentHelp("Drop it this long after unlocking, however often it is used.", valueName: "duration"))
  var max = "8h"

  @Flag(
    help: ArgumentHelp(
      "Keep the key even where this login has no session keyring of its own: in your user's default keyring, which all your processes without one share."
    ))
  var sharedKeyring = false

  static let defaultIdleSeconds = 15 * 60

  func validate() throws {
    let longest = SessionLifetime.longestSeconds
    if let idle, Self.seconds(idle) == nil {
      throw ValidationError("--for must be a duration such as 90s, 15m or 2h ('\(idle)' is not).")
    }
    guard let maxSeconds = Self.seconds(max) else {
      throw ValidationError("--max must be a duration such as 90s, 15m, 8h or 2d ('\(max)' is not).")
    }
    if idleSeconds > maxSeconds { throw ValidationError("--for cannot be longer than --max.") }
    if maxSeconds > longest {
      throw ValidationError("--max can be at most \(IdleDuration.text(longest)) (7 days).")
    }
  }

  /// --for, or its default cut to --max (`--max 10m` alone keeps the key 10 minutes).
  var idleSeconds: Int {
    if let idle { return Self.seconds(idle) ?? 0 }
    return min(Self.defaultIdleSeconds, Self.seconds(max) ?? Self.defaultIdleSeconds)
  }

  /// Whole seconds of a duration, at least one; nil when it does not parse.
  static func seconds(_ text: String) -> Int? {
    guard let seconds = IdleDuration.seconds(text), seconds >= 1 else { return nil }
    return Int(seconds)
  }

  func run() throws {
    let vault = try options.openVault()
    // Checked before the password is asked for: it would be asked for nothing.
    try SessionKeyring.checkAvailable()
    if SessionKeyring.isUserDefaultSession && !sharedKeyring {
      throw CommandRefusal(
        "this login has no session keyring of its own: a key kept now would be in your user's default keyring, which all your processes without one share (cron jobs, services, other logins without pam_keyinit); nothing was kept",
        hint:
          "run 'keyctl session -' (a shell with a session keyring of its own) and unlock in it, or pass --shared-keyring to keep it in the shared one anyway"
      )
    }
    let space = try vault.unlock(password: try options.password(), access: .read)
    let lifetime = SessionLifetime(idleSeconds: idleSeconds, maximumSeconds: Self.seconds(max)!)
    let key = try SessionKeyring.store(space, of: vault, lifetime: lifetime)
    printLine("unlocked: \(SessionKeyText.lifetime(of: key))")
    if SessionKeyring.isUserDefaultSession {
      Diagnostics.warning(
        "the key is kept in your user's default keyring, which all your processes without a session keyring share"
      )
    }
  }
}
