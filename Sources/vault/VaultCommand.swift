import ArgumentParser
import Foundation
import VaultCore
import VaultServe
import VaultTerminal

/// The root command: configuration only.
struct VaultCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "vault",
    abstract: "An encrypted photo vault: every password opens its own, separate space.",
    discussion: """
      Exit status: 0 on success, 1 on an error or when some items of a batch failed, \
      3 when no space opens with the password (or recovery key), 64 for a usage error, 130 when a signal \
      (Ctrl-C) stopped the command after it saved what it had done.
      """,
    version: VaultCommand.version,
    subcommands: [
      InitCommand.self, AddCommand.self, ListCommand.self, ShowCommand.self, ViewCommand.self,
      SelectCommand.self,
      UnselectCommand.self,
      DeleteCommand.self, TrashCommand.self, ExportCommand.self, AlbumCommand.self, VerifyCommand.self,
      OffloadCommand.self, KeepCommand.self,
      ServeCommand.self,
      PasswdCommand.self, RecoveryKeyCommand.self, RecoverCommand.self,
      UnlockCommand.self, LockCommand.self, InfoCommand.self, MountCommand.self, UnmountCommand.self,
      BackupCommand.self, RestoreCommand.self,
    ]
  )

  /// The version `vault --version` prints.
  static let version = "2.0.0-dev"

  /// Exit status when no space opens with the password.
  static let noSpaceExitCode: Int32 = 3
  static let changedElsewhereHint =
    "if this vault is kept in sync and its password was changed on another copy, the new password opens this copy once the sync has brought the change here"
  static let keyMissingHint =
    "if the password was changed on another copy, the new one opens the space (its next command takes this folder's files in); else restore the key file from a backup, or use 'vault recover'"

  /// The one exit point: runs the command and turns every error into a message and status.
  static func runAndExit() -> Never {
    ProcessHardening.disableCoreDumps()
    ProcessSignals.setActionsAtStart()
    PasswordInput.takeEnvironmentPassword()
    Space.onLockWait { holder, limit in
      let bound = limit.map { String(format: " (at most %g s)", $0) } ?? ""
      Diagnostics.emit("waiting for \(holder ?? "another command"), which is using the space\(bound)…")
    }
    let status = runCommand()
    // The command is over, whatever its outcome: its writes are done or undone.
    Space.removeWriterMarks()
    Foundation.exit(status)
  }

  private static func runCommand() -> Int32 {
    do {
      var command = try parseAsRoot()
      try command.run()
      return 0
    } catch let error as VaultError {
      Diagnostics.error(error.messageWithHint)
      // Said to every password that opens nothing (so it tells nothing about this one) in a
      // vault kept by a sync engine: such a copy opens with a new password only once the
      // change arrives. Elsewhere it cannot apply.
      if error == .noSpaceForPassword, SyncEngineMarks.openedVaultKeptInSync {
        Diagnostics.hint(changedElsewhereHint)
      }
      if case .spaceKeyMissing = error { Diagnostics.hint(keyMissingHint) }
      switch error {
      case .noSpaceForPassword, .noSpaceForRecoveryKey, .spaceKeyMissing: return noSpaceExitCode
      default: return 1
      }
    } catch let error as ServeError {
      Diagnostics.error(error.description)
      return 1
    } catch let error as BatchFailure {
      // Line by line: escaped whole, the line break showed as a literal \n.
      for line in error.summary.split(separator: "\n") { Diagnostics.emit(String(line)) }
      return 1
    } catch let error as CommandRefusal {
      Diagnostics.error(error.message)
      Diagnostics.hint(error.hint)
      return 1
    } catch let error as CommandInterrupted {
      Diagnostics.emit(error.summary)
      return SignalHandling.interruptedExitCode
    } catch {
      if let status = reportBackupFailure(error) { return status }
      let code = exitCode(for: error)
      var message = fullMessage(for: error)
      // The message quotes what was typed: an argument with a line break in it must not
      // start a line of its own, so arguments are escaped before the message is split.
      for argument in CommandLine.arguments.dropFirst() where TerminalSafeText.escaped(argument) != argument {
        message = message.replacingOccurrences(of: argument, with: TerminalSafeText.escaped(argument))
      }
      if code == .success {
        // --help and --version.
        print(message)
        return 0
      }
      for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
        // argument-parser words its own errors "Error: …" and "Help: …"; every error line
        // of vault starts with "error:".
        if line.hasPrefix("Error: ") {
          Diagnostics.error(String(line.dropFirst(7)))
        } else if line.hasPrefix("Help: ") {
          Diagnostics.hint(String(line.dropFirst(6)))
        } else if !line.isEmpty {
          Diagnostics.emit(String(line))
        }
      }
      return code.rawValue
    }
  }
}

extension VaultCommand {
  /// Says why a backup, check or restore failed (a remote's or the backup's own reason, one
  /// line) and returns the exit status; nil for any other error.
  static func reportBackupFailure(_ error: Error) -> Int32? {
    switch error {
    case let error as RemoteError:
      Diagnostics.error(error.description)
      if case .rcloneMissing = error { Diagnostics.hint("install rclone (Debian: apt install rclone)") }
    case let error as BackupError:
      Diagnostics.error(error.description)
      if case .anotherVaultsBackup = error { Diagnostics.hint("back this vault up to a new remote path") }
    default:
      return nil
    }
    return 1
  }
}

/// Some items of a batch failed (each already reported); the command exits with status 1.
struct BatchFailure: Error {
  let summary: String
}

/// The command will not do what was asked here, and a hint says how to get it done; the
/// command exits with status 1.
struct CommandRefusal: Error {
  let message: String
  let hint: String

  init(_ message: String, hint: String) {
    self.message = message
    self.hint = hint
  }
}
