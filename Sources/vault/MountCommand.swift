import ArgumentParser
import Foundation
import VaultCore
import VaultMount

struct MountCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "mount",
    abstract: "Show the space's photos as a read-only folder that any program can open.",
    discussion: """
      FOLDER must be an empty folder of yours. It shows Photos/ (every photo, named as \
      export names them), Albums/<album>/, Dates/<year>/<month>/, Selected/ and \
      Recently Deleted/; a Live Photo shows its still and its MOV; a photo shown in \
      several folders is one file (one inode, hard links). Files are read-only, for you only, with each \
      original's size and modification time; reads decrypt only the pieces asked for, in \
      memory, never on disk. Other vault commands keep working meanwhile, and their changes \
      show within a few seconds. Stays in the foreground until Ctrl-C, SIGTERM or \
      'vault unmount FOLDER'; with --background, returns once mounted.
      """)

  @OptionGroup var options: VaultOptions

  @Argument(
    help: ArgumentHelp("An empty folder of yours to show the photos in.", valueName: "folder"),
    completion: .directory)
  var folder: String

  @Flag(help: "Return once mounted, leaving the mount running (stop it with 'vault unmount FOLDER').")
  var background = false

  /// Set by a `--background` parent in the child it starts: where to say it is mounted.
  @Option(help: .hidden)
  var readyFd: Int32?

  func run() throws {
    // Checked before the password is asked for: a mount that cannot happen costs no KDF.
    if MountPoint.isAbandonedMount(folder) {
      throw VaultError.io(
        path: folder,
        reason: "a mount whose process ended is still here: run 'vault unmount \(folder)' first")
    }
    if let resolved = realpath(folder, nil) {
      defer { free(resolved) }
      if MountTable.hasVaultMount(at: String(cString: resolved)) {
        throw VaultError.io(
          path: folder, reason: "a vault mount is here already: end it with 'vault unmount \(folder)' first")
      }
    }
    try MountPoint.check(folder)
    try MountPoint.requireFuse()
    if background {
      try BackgroundMount(options: options, folder: folder).start()
      return
    }
    let space = try options.unlock(.read)
    // Other commands must not wait for a mount that stays for hours.
    space.releaseLock()
    let mount = PhotoMount(space: space, mountPoint: folder)
    mount.onProblem = { Diagnostics.warning($0) }
    try mount.mount()
    if let readyFd {
      BackgroundMountProcess.detach(saying: readyFd)
    } else {
      print(
        "mounted the space's photos at \(folder) (read-only); stop with Ctrl-C or 'vault unmount \(folder)'")
      fflush(nil)  // every stream: Swift 6 does not let code read C's global `stdout`
    }
    mount.run()
  }
}
