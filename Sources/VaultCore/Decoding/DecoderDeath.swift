import Foundation

/// How a helper ended in the middle of a request, in the words the file's refusal gives:
/// the limit it hit, or the signal it died of.
struct DecoderDeath: Equatable {
  /// The wait status from wait4.
  var status: Int32
  /// Whether the parent killed it because its deadline passed.
  var overran: Bool
  /// Whether its last word (`dying`) said the address space was full.
  var addressSpaceFull: Bool

  func reason(limits: DecoderLimits) -> String {
    if overran { return "decoding took more than \(String(format: "%g", limits.deadline)) s" }
    if addressSpaceFull { return Self.memoryReason(limit: limits.memoryBytes) }
    if Self.signalled(status) {
      let signal = Self.signal(status)
      if signal == SIGXCPU { return "decoding used more than \(limits.cpuSeconds) s of processor time" }
      if signal == SIGSYS { return "the decoder made a forbidden system call and was killed (SIGSYS)" }
      return "the decoder died of \(Self.name(of: signal))"
    }
    let code = (status >> 8) & 0xFF
    if code == Self.cannotConfine { return "the decoder could not confine itself" }
    return code == 0 ? "the decoder stopped without answering" : "the decoder exited with status \(code)"
  }

  /// vault-decoder's status when its limits or filter were refused (EX_OSERR): its own
  /// message goes to /dev/null, so the parent says it.
  static let cannotConfine: Int32 = 71

  static func memoryReason(limit: Int) -> String {
    "decoding needs more than \(formatMemory(limit))"
  }

  static func signalled(_ status: Int32) -> Bool { (status & 0x7F) != 0 && (status & 0x7F) != 0x7F }
  static func signal(_ status: Int32) -> Int32 { status & 0x7F }

  static func name(of signal: Int32) -> String {
    let names: [Int32: String] = [
      SIGABRT: "SIGABRT", SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
      SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGFPE: "SIGFPE", SIGSYS: "SIGSYS", SIGXCPU: "SIGXCPU",
      SIGXFSZ: "SIGXFSZ", SIGPIPE: "SIGPIPE",
    ]
    return names[signal] ?? "signal \(signal)"
  }
}
