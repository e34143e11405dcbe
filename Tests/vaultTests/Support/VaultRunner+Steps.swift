import Foundation

/// A step of a command at which a crash test kills vault: the `occurrence`-th call of
/// `syscall` by the command's main thread. strace sends SIGKILL as the call is entered, so
/// the step is not taken and every step before it is.
struct DurableStep: Equatable, CustomStringConvertible {
  /// The calls that make a change visible or durable.
  static let syscalls = ["mkdir", "rename", "link", "linkat", "unlink", "fsync", "fdatasync"]

  let syscall: String
  let occurrence: Int

  var description: String { "\(syscall) #\(occurrence)" }
}

extension VaultRunner {
  static let strace = "/usr/bin/strace"

  /// Whether strace is here to kill at a step; a test without it kills at random times
  /// instead. Under `CI=true` a missing strace fails the test.
  static func hasStrace() throws -> Bool {
    guard FileManager.default.isExecutableFile(atPath: strace) else {
      if isContinuousIntegration { throw missing("\(strace) is not installed; scripts/test installs it") }
      return false
    }
    return true
  }

  /// Runs `arguments` to its end under strace; returns the run and its durable steps in
  /// order. A kill at one of them lands at the same point of the same command on a vault
  /// in the same state, however fast the machine is.
  func durableSteps(_ arguments: [String], password: String = "correct horse") throws -> (
    run: VaultRun, steps: [DurableStep]
  ) {
    let trace = workingDirectory + "/.strace-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: trace) }
    let calls = (["execve"] + DurableStep.syscalls).joined(separator: ",")
    let run = try self.run(
      arguments, password: password, through: [Self.strace, "-f", "-qq", "-o", trace, "-e", "trace=" + calls])
    var mainThread: Substring?
    var counts: [String: Int] = [:]
    var steps: [DurableStep] = []
    // Lines read "<thread id> <call>(<arguments>) = <result>"; a call another thread
    // interrupts is split into "<call>(… <unfinished ...>" and "<... <call> resumed>".
    for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 1)
      guard fields.count == 2 else { continue }
      let call = fields[1].drop { $0 == " " }
      if mainThread == nil && call.hasPrefix("execve(") { mainThread = fields[0] }
      let name = String(call.prefix { $0 != "(" })
      guard fields[0] == mainThread, call.contains("("), DurableStep.syscalls.contains(name) else { continue }
      counts[name, default: 0] += 1
      steps.append(DurableStep(syscall: name, occurrence: counts[name]!))
    }
    return (run, steps)
  }

  /// Runs `arguments` under strace, which kills vault with SIGKILL as its main thread enters
  /// `step`.
  func runKilled(_ arguments: [String], at step: DurableStep, password: String = "correct horse") throws
    -> VaultRun
  {
    try run(
      arguments, password: password,
      through: [
        Self.strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + step.syscall,
        "-e", "inject=\(step.syscall):signal=KILL:when=\(step.occurrence)",
      ])
  }
}
