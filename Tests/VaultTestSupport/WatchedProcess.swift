import Foundation
import VaultCore

/// A program a test starts and watches, such as a server (sshd, moto): run under `setpriv
/// --pdeathsig KILL`, so that it ends with the test process even if that crashes, and its
/// stdout and stderr read on a thread of their own, so that it never blocks on a full pipe
/// and the test can wait for the line that says it is ready.
///
/// Started with posix_spawn and reaped here, not through Foundation's Process: Process
/// (Swift 6.3 on Linux) takes a program's closing of the descriptors it inherited, which
/// sshd does at its start, for its end, and waits for it in the thread that notices every
/// process's end, so that no Process of the test ever ends again.
public final class WatchedProcess: Sendable {
  static let setpriv = "/usr/bin/setpriv"

  /// What the program has printed: its complete lines, the start of the next, and whether
  /// the output has ended (every process that held it has closed it).
  private struct Output {
    var lines: [String] = []
    var partial: [UInt8] = []
    var ended = false
  }

  private let output = WaitableMutex(Output())
  /// Its exit status once it has been reaped (waited for under this lock, by one thread).
  private let exitStatus = WaitableMutex<Int32?>(nil)
  public let processIdentifier: pid_t

  /// Starts `command` (a program's absolute path and its arguments) with `environment`
  /// added to the test process's, stdin from /dev/null.
  public init(_ command: [String], environment: [String: String] = [:]) throws {
    try requireTool(Self.setpriv)
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
    defer { close(ends[1]) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
    posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
    let arguments = ([Self.setpriv, "--pdeathsig", "KILL"] + command).map { strdup($0) } + [nil]
    let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map {
      strdup($0 + "=" + $1)
    }
    defer { for pointer in arguments + variables { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, Self.setpriv, &actions, nil, arguments, variables + [nil])
    guard result == 0 else {
      close(ends[0])
      throw TestFailure("cannot start \(command[0]): \(String(cString: strerror(result)))")
    }
    processIdentifier = pid
    let readEnd = ends[0]
    Thread.detachNewThread { [output] in Self.collect(from: readEnd, into: output) }
  }

  deinit { stop() }

  /// Reads the output until it ends, a line at a time into `output`, waking its waiters.
  private static func collect(from descriptor: Int32, into output: WaitableMutex<Output>) {
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      let chunk = count > 0 ? Array(buffer[0..<count]) : []
      output.withLock { output in
        output.partial += chunk
        while let end = output.partial.firstIndex(of: UInt8(ascii: "\n")) {
          // (sshd ends its lines with "\r\n".)
          let line = output.partial[..<end].last == UInt8(ascii: "\r") ? end - 1 : end
          output.lines.append(String(decoding: output.partial[..<line], as: UTF8.self))
          output.partial.removeSubrange(...end)
        }
        if count <= 0 { output.ended = true }
      }
      output.wakeAll()
      if count <= 0 { break }
    }
    close(descriptor)
  }

  /// The value `match` gives for the first line that it matches, waiting for more lines
  /// while the output goes on; nil once it ended without such a line, or after `seconds`
  /// (a bound for a program that hangs, not a wait that a slow machine could outlast).
  public func firstLine<Value>(within seconds: Double, _ match: (String) -> Value?) -> Value? {
    let deadline = Date(timeIntervalSinceNow: seconds)
    var scanned = 0
    var found: Value?
    output.withLock(
      waiting: { output in
        while scanned < output.lines.count {
          found = match(output.lines[scanned])
          scanned += 1
          if found != nil { return .no }
        }
        let left = deadline.timeIntervalSinceNow
        return output.ended || left <= 0 ? .no : .atMost(seconds: left)
      },
      then: { _ in })
    return found
  }

  /// Everything the program has printed so far, for a failure's message.
  public var printed: String {
    output.withLock { output in
      (output.lines + [String(decoding: output.partial, as: UTF8.self)]).joined(separator: "\n")
    }
  }

  public var isRunning: Bool { reaped(waiting: false) == nil }

  /// Waits for the program to end (it was told to, or will end by itself); its exit
  /// status, or 128 plus the signal that ended it, as a shell gives it.
  public func waitUntilExit() -> Int32 {
    reaped(waiting: true) ?? -1
  }

  /// The exit status, once the program has ended; `waiting` for that if asked.
  private func reaped(waiting: Bool) -> Int32? {
    exitStatus.withLock { exitStatus in
      if exitStatus == nil {
        var status: Int32 = 0
        if waitpid(processIdentifier, &status, waiting ? 0 : WNOHANG) == processIdentifier {
          exitStatus = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + status & 0x7F
        }
      }
      return exitStatus
    }
  }

  /// Ends the program and every process it started, and theirs (sshd starts one per
  /// connection, each in a session of its own, so no process group holds them all): all
  /// are stopped (SIGSTOP, after which none can start another) and looked for again until
  /// no new one appears, then killed (SIGKILL); returns once each is gone. Safe to call again.
  public func stop() {
    guard isRunning else { return }
    var family: [pid_t] = []
    var found = [processIdentifier]
    while !found.isEmpty {
      for pid in found { kill(pid, SIGSTOP) }
      family += found
      found = ProcessTable.children(of: Set(family)).filter { !family.contains($0) }
    }
    for pid in family { kill(pid, SIGKILL) }
    _ = waitUntilExit()
    ProcessTable.waitUntilGone(family)
  }
}
