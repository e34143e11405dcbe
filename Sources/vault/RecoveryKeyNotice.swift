import Foundation
import VaultCore

/// Shows a space's new recovery key once (`init`, `passwd`, `recovery-key`): the line
/// `recovery key: XXXX-…` goes to standard output whether or not it is a terminal, so
/// that a script can keep it; the advice goes to standard error.
enum RecoveryKeyNotice {
  static let prefix = "recovery key: "

  static func show(_ key: RecoveryKey) {
    var keyText = key.displayBytes()
    defer { keyText.wipe() }
    var line = [UInt8]()
    // Room for the whole line, so that growing never leaves an unwiped copy behind.
    line.reserveCapacity(prefix.utf8.count + keyText.count + 1)
    defer { line.wipe() }
    line += Array(prefix.utf8)
    line += keyText
    line.append(0x0A)
    // Written straight from the buffer (not through stdio, which would keep a copy).
    Diagnostics.clearProgress()
    fflush(nil)  // every stream: Swift 6 does not let code read C's global `stdout`
    var offset = 0
    while offset < line.count {
      let written = line.withUnsafeBytes {
        write(STDOUT_FILENO, $0.baseAddress! + offset, line.count - offset)
      }
      if written < 0 && errno == EINTR { continue }
      if written <= 0 { break }
      offset += written
    }
    Diagnostics.hint(
      "write the recovery key down and keep it apart from the vault (not in the same folder, disk or backup): "
        + "with it, 'vault recover' sets a new password when this one is forgotten; nothing else can")
  }
}
