import CVaultSystem

/// Protections a process holding keys applies to itself at start.
public enum ProcessHardening {
  /// Disables core dumps and ptrace-style memory access by other processes of the user.
  /// Returns false if the system refused.
  @discardableResult
  public static func disableCoreDumps() -> Bool {
    vault_disable_core_dumps() == 0
  }
}
