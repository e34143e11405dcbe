import CVaultSystem
import Foundation

/// One run of a helper tool: started through `ToolStarter`, its stdout kept (at most
/// `outputLimit` bytes) and its stderr handed over line by line as they come, and killed
/// by a watchdog when it shows no sign of life for `silenceLimit` seconds: no output, and
/// no stderr line that `onLine` calls one (a stats line whose counts moved).
struct ToolProcess {
  /// How it ended.
  struct Outcome {
    /// The exit status, or 128 + the signal that ended it.
    var status: Int32
    var output: [UInt8]
    /// The watchdog killed it.
    var silent = false
    /// It wrote more than `outputLimit` bytes and was killed.
    var overflowed = false
  }

  let path: String
  let arguments: [String]
  let environment: [String]
  let silenceLimit: Double
  let outputLimit: Int

  /// Runs the tool to its end; the errno value when it cannot be started.
  func run(onLine: (String) -> Bool) -> Result<Outcome, ToolStartFailure> {
    var outputPipe: [Int32] = [-1, -1]
    var errorPipe: [Int32] = [-1, -1]
    guard vault_make_wake_pipe(&outputPipe) == 0 else { return .failure(ToolStartFailure(code: errno)) }
    guard vault_make_wake_pipe(&errorPipe) == 0 else {
      let code = errno
      close(outputPipe[0])
      close(outputPipe[1])
      return .failure(ToolStartFailure(code: code))
    }
    // The tool writes as programs do, blocking; only this side polls.
    for end in [outputPipe[1], errorPipe[1]] { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) & ~O_NONBLOCK) }
    let started = ToolStarter.start(
      path, arguments: arguments, environment: environment, output: outputPipe[1], errors: errorPipe[1])
    close(outputPipe[1])
    close(errorPipe[1])
    defer {
      close(outputPipe[0])
      close(errorPipe[0])
    }
    switch started {
    case .failure(let failure): return .failure(failure)
    case .success(let pid):
      var reader = Reader(process: self, pid: pid, output: outputPipe[0], errors: errorPipe[0])
      return .success(reader.readToEnd(onLine: onLine))
    }
  }
}

/// Why a tool did not start: an errno value (ENOENT: it is not there).
struct ToolStartFailure: Error {
  let code: Int32
}

extension ToolProcess {
  /// Reads a started tool's two pipes until both end, then reaps it.
  fileprivate struct Reader {
    let process: ToolProcess
    let pid: pid_t
    let output: Int32
    let errors: Int32
    var outcome = Outcome(status: 0, output: [])
    var pendingLine: [UInt8] = []
    var lastSignOfLife = Self.now()
    var killed = false

    init(process: ToolProcess, pid: pid_t, output: Int32, errors: Int32) {
      self.process = process
      self.pid = pid
      self.output = output
      self.errors = errors
    }

    mutating func readToEnd(onLine: (String) -> Bool) -> Outcome {
      var open: [Int32] = [output, errors]
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      // Once killed, what is left in the pipes is not read: a child of the tool could hold
      // them open.
      while !open.isEmpty && !killed {
        if Self.now() - lastSignOfLife >= process.silenceLimit {
          outcome.silent = true
          kill()
          break
        }
        var pollers = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&pollers, nfds_t(pollers.count), waitMilliseconds())
        if ready < 0 && errno != EINTR {
          kill()
          break
        }
        if ready <= 0 { continue }
        for poller in pollers where poller.revents != 0 {
          let count = Glibc.read(poller.fd, &chunk, chunk.count)
          if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
          guard count > 0 else {
            open.removeAll { $0 == poller.fd }
            continue
          }
          take(chunk[..<count], from: poller.fd, onLine: onLine)
        }
      }
      if !pendingLine.isEmpty && !killed { _ = onLine(String(decoding: pendingLine, as: UTF8.self)) }
      outcome.status = reap()
      return outcome
    }

    private mutating func take(_ bytes: ArraySlice<UInt8>, from descriptor: Int32, onLine: (String) -> Bool) {
      guard descriptor == errors else {
        lastSignOfLife = Self.now()
        outcome.output += bytes
        if outcome.output.count > process.outputLimit {
          outcome.overflowed = true
          kill()
        }
        return
      }
      pendingLine += bytes
      while let newline = pendingLine.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: pendingLine[..<newline], as: UTF8.self)
        pendingLine.removeSubrange(...newline)
        if onLine(line) { lastSignOfLife = Self.now() }
      }
    }

    /// Until the watchdog's bound, in milliseconds (at least 1, at most a minute).
    private func waitMilliseconds() -> Int32 {
      let left = process.silenceLimit - (Self.now() - lastSignOfLife)
      return Int32(max(1, min(60_000, (left * 1000).rounded(.up))))
    }

    private mutating func kill() {
      killed = true
      _ = Glibc.kill(pid, SIGKILL)
    }

    private func reap() -> Int32 {
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 {
        if errno != EINTR { return 128 + SIGKILL }
      }
      let signal = status & 0x7f
      return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private static func now() -> Double {
      var time = timespec()
      clock_gettime(CLOCK_MONOTONIC, &time)
      return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
  }
}
