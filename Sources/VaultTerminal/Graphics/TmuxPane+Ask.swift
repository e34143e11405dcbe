import Dispatch
import Foundation

extension TmuxPane {
  /// How long tmux may take to say where the pane is (seconds). It answers at once; one
  /// that does not (stopped, or its server hung) must not hold vault, and the key, waiting.
  static let answerTimeout = 1.0
  /// The longest answer read (bytes): one line of numbers and a TERM.
  static let longestAnswer = 4096

  /// The pane vault runs in (TMUX_PANE), asked of the `tmux` that `environment`'s PATH
  /// finds; a tmux that has not answered within `answerTimeout` is killed.
  static func ask(environment: [String: String]) -> Result<TmuxPane, TmuxSilence> {
    guard let pane = environment["TMUX_PANE"], !pane.isEmpty else { return .failure(.unavailable) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["tmux", "display-message", "-p", "-t", pane, format]
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    do { try process.run() } catch { return .failure(.unavailable) }
    let deadline = DispatchTime.now() + answerTimeout
    let answer = firstLine(of: output.fileHandleForReading.fileDescriptor, before: deadline)
    guard exited.wait(timeout: deadline) == .success else {
      kill(process)
      // Reaped once it is gone; a process that even SIGKILL does not end yet is left.
      _ = exited.wait(timeout: .now() + answerTimeout)
      return .failure(.noAnswerInTime)
    }
    guard process.terminationStatus == 0 else { return .failure(.unavailable) }
    guard let answer, let pane = TmuxPane(answer: answer) else { return .failure(.unusableAnswer) }
    return .success(pane)
  }

  /// Kills `process` with SIGKILL, and what it started too where it leads a process group
  /// of its own (Foundation starts it in one): a script's `sleep` would keep running.
  private static func kill(_ process: Process) {
    guard process.isRunning else { return }
    let pid = process.processIdentifier
    _ = Glibc.kill(getpgid(pid) == pid ? -pid : pid, SIGKILL)
  }

  /// The first line read from `descriptor` before `deadline` (all that came before its
  /// end, if it ended without a newline); nil when none came in time or it was longer
  /// than `longestAnswer`.
  private static func firstLine(of descriptor: Int32, before deadline: DispatchTime) -> String? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 512)
    while bytes.count <= longestAnswer {
      if let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) {
        return String(decoding: bytes[..<newline], as: UTF8.self)
      }
      let now = DispatchTime.now()
      guard now < deadline else { return nil }
      let milliseconds = (deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1_000_000 + 1
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(milliseconds))
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0 else { return nil }
      let count = read(descriptor, &chunk, chunk.count)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return String(decoding: bytes, as: UTF8.self) }
      bytes += chunk[..<count]
    }
    return nil
  }
}
