import ArgumentParser
import Foundation
import VaultCore

/// The root command: configuration only.
struct VaultCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "vault",
    abstract: "An encrypted photo vault: every password opens its own, separate space.",
    discussion: """
      Exit status: 0 on success, 1 on an error or when some items of a batch failed, \
      3 when no space opens with the password, 64 for a usage error, 130 when a signal \
      (Ctrl-C) stopped the command after it saved what it had done.
      """,
    subcommands: [
      InitCommand.self, AddCommand.self, ListCommand.self, SelectCommand.self, UnselectCommand.self,
      DeleteCommand.self, ExportCommand.self, VerifyCommand.self,
    ]
  )

  /// Exit status when no space opens with the password.
  static let noSpaceExitCode: Int32 = 3

  /// The one exit point: runs the command and turns every error into a message and status.
  static func runAndExit() -> Never {
    ProcessHardening.disableCoreDumps()
    do {
      var command = try parseAsRoot()
      try command.run()
      Foundation.exit(0)
    } catch let error as VaultError {
      Diagnostics.error(error.description)
      Foundation.exit(error == .noSpaceForPassword ? noSpaceExitCode : 1)
    } catch let error as BatchFailure {
      Diagnostics.emit(error.summary)
      Foundation.exit(1)
    } catch let error as CommandInterrupted {
      Diagnostics.emit(error.summary)
      Foundation.exit(SignalHandling.interruptedExitCode)
    } catch {
      Self.exit(withError: error)
    }
  }
}

/// Some items of a batch failed (each already reported); the command exits with status 1.
struct BatchFailure: Error {
  let summary: String
}
