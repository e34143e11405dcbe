import Foundation
import VaultCore

/// Ends a vault mount as its user does: through fusermount3, the setuid helper that
/// unmounts FUSE file systems for any user.
public enum FuseUnmount {
  public enum Outcome: Equatable {
    case unmounted
    /// A program still had a file open in it: the folder is empty at once, and the mount
    /// ends when the last program lets go of it.
    case unmountedLazily
  }

  /// Unmounts the vault mount at `folder`, lazily when a program still has a file open in
  /// it; refuses a folder that is not a vault mount.
  public static func unmount(_ folder: String) throws -> Outcome {
    guard let resolved = realpath(folder, nil) else {
      throw VaultError.io(path: folder, reason: String(cString: strerror(errno)))
    }
    let path = String(cString: resolved)
    free(resolved)
    guard MountTable.hasVaultMount(at: path) else {
      throw VaultError.io(path: folder, reason: "not a vault mount")
    }
    let first = try fusermount(["-u", path], folder: folder)
    if first.status == 0 { return .unmounted }
    guard first.errors.contains("busy") else {
      throw VaultError.io(path: folder, reason: "could not unmount: " + first.errors)
    }
    let lazy = try fusermount(["-u", "-z", path], folder: folder)
    guard lazy.status == 0 else {
      throw VaultError.io(path: folder, reason: "could not unmount: " + lazy.errors)
    }
    return .unmountedLazily
  }

  /// Runs fusermount3, with its status and what it said on standard error.
  private static func fusermount(_ arguments: [String], folder: String) throws -> (
    status: Int32, errors: String
  ) {
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
