import ArgumentParser
import Foundation
import VaultCore
import VaultMount

/// `vault mount --background`: the space's credential is found here (a prompt needs the
/// terminal), then a child `vault mount --ready-fd 3` mounts (BackgroundMountProcess says
/// why a child).
struct BackgroundMount {
  let options: VaultOptions
  let folder: String

  func start() throws {
    let vault = try options.openVault()
    var password: Password?
    if case .password(let given) = try options.credential(for: vault) { password = given }
    var arguments = ["vault", "mount", folder, "--vault", options.resolvedVaultPath, "--ready-fd", "3"]
    if password != nil { arguments += ["--password-file", "-"] }
    switch try BackgroundMountProcess.start(arguments, password: password, folder: folder) {
    case .mounted(let child):
      print(
        "mounted the space's photos at \(folder) (read-only) in process \(child); stop with 'vault unmount \(folder)'"
      )
    case .failed(let status):
      // It said why on the standard error it shares with this process.
      throw ExitCode(status)
    }
  }
}
