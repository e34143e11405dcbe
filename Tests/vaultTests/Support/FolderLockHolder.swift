import Foundation
import XCTest

/// Another process holding a folder's lock, as `view`, `mount` or `serve` hold their
/// space's: util-linux `flock`, which keeps it until it is ended.
final class FolderLockHolder {
  let flock = Process()
  /// The process flock runs while it holds the lock.
  private var sleeper: Int32?
  private var ended = false

  /// Returns once the lock on `folder` is held (flock's command printed its pid).
  init(_ folder: String, exclusive: Bool = true) throws {
    flock.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
    // -o: the command run under the lock does not inherit it, so killing flock lets go.
    // The command prints its pid, so that it is killed too.
    flock.arguments = ["-o", exclusive ? "-x" : "-s", folder, "sh", "-c", "echo $$; exec sleep 100000"]
    let pipe = Pipe()
    flock.standardOutput = pipe
    flock.standardError = FileHandle.nullDevice
    flock.standardInput = FileHandle.nullDevice
    try flock.run()
    // Closed here, so that a flock that fails ends the read below.
    try pipe.fileHandleForWriting.close()
    var line = Data()
    while !line.contains(0x0A) {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    sleeper = Int32(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    XCTAssertNotNil(sleeper, "flock did not take the lock")
  }

  var processIdentifier: Int32 { flock.processIdentifier }

  /// Kills and reaps flock and the command it runs. Not with `waitUntilExit`: Foundation
  /// can miss the SIGCHLD of a killed child and then waits forever.
  func end() {
    guard !ended else { return }
    ended = true
    if let sleeper { kill(sleeper, SIGKILL) }
    kill(flock.processIdentifier, SIGKILL)
    var status: Int32 = 0
    while waitpid(flock.processIdentifier, &status, 0) < 0 && errno == EINTR {}
  }
}
