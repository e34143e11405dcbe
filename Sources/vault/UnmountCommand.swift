import ArgumentParser
import Foundation
import VaultCore
import VaultMount

struct UnmountCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "unmount",
    abstract: "End a 'vault mount'.",
    discussion: """
      Unmounts FOLDER (as 'fusermount3 -u' does), which ends its 'vault mount'. When a \
      program still has a file open in it, says so and unmounts lazily: the folder is empty \
      at once, and the mount ends when the last program lets go of it.
      """)

  @Argument(help: ArgumentHelp("The folder a 'vault mount' shows the photos in.", valueName: "folder"))
  var folder: String

  func run() throws {
    guard let resolved = realpath(folder, nil) else {
      throw VaultError.io(path: folder, reason: String(cString: strerror(errno)))
    }
    let path = String(cString: resolved)
    free(resolved)
    guard MountTable.hasVaultMount(at: path) else {
      throw VaultError.io(path: folder, reason: "not a vault mount")
    }
    let first = try fusermount(["-u", path])
    if first.status == 0 { return }
    guard first.errors.contains("busy") else {
      throw VaultError.io(path: folder, reason: "could not unmount: " + first.errors)
    }
    let lazy = try fusermount(["-u", "-z", path])
    guard lazy.status == 0 else {
      throw VaultError.io(path: folder, reason: "could not unmount: " + lazy.errors)
    }
    Diagnostics.emit(
      "a program still has a file open in \(folder): unmounted lazily; the folder is empty now, and the mount ends when that program closes it"
    )
  }

  /// Runs fusermount3 (the setuid helper that unmounts FUSE file systems for any user),
  /// with its status and what it said on standard error.
  private func fusermount(_ arguments: [String]) throws -> (status: Int32, errors: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["fusermount3"] + arguments
    let errors = Pipe()
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw VaultError.io(path: folder, reason: "could not run fusermount3 (install fuse3): \(error)")
    }
    let said = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    if process.terminationStatus == 127 {
      throw VaultError.io(path: folder, reason: "fusermount3 is missing (install fuse3)")
    }
    let text = String(decoding: said, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    return (process.terminationStatus, text)
  }
}
