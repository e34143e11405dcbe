import ArgumentParser
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

  @Argument(
    help: ArgumentHelp("The folder a 'vault mount' shows the photos in.", valueName: "folder"),
    completion: .directory)
  var folder: String

  func run() throws {
    if try FuseUnmount.unmount(folder) == .unmountedLazily {
      Diagnostics.emit(
        "a program still has a file open in \(folder): unmounted lazily; the folder is empty now, and the mount ends when that program closes it"
      )
    }
  }
}
