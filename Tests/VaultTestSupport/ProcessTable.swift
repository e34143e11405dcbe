import Foundation

/// The processes of this machine as /proc shows them: who started whom, and who is still
/// alive, for stopping a server with everything it started.
public enum ProcessTable {
  /// The process ids whose parent is one of `parents`.
  public static func children(of parents: Set<pid_t>) -> [pid_t] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { pid_t($0) }.filter { pid in
      guard let parent = status(of: pid)?.parent else { return false }
      return parents.contains(parent)
    }
  }

  /// `pid` and every process it started, and theirs, as they are now.
  public static func family(of pid: pid_t) -> [pid_t] {
    var family = [pid]
    var found = children(of: [pid])
    while !found.isEmpty {
      family += found
      found = children(of: Set(found)).filter { !family.contains($0) }
    }
    return family
  }

  /// Whether `pid` is a live process: it exists and is not a zombie (dead, its entry kept
  /// until a parent that has not reaped it does; here PID 1 may never do so).
  public static func isAlive(_ pid: pid_t) -> Bool {
    guard let state = status(of: pid)?.state else { return false }
    return state != "Z" && state != "X"
  }

  /// Returns once none of `pids` is alive, or after a minute (then it gives up: the caller
  /// killed them, and only a machine in trouble takes that long).
  static func waitUntilGone(_ pids: [pid_t]) {
    let deadline = Date(timeIntervalSinceNow: 60)
    while pids.contains(where: isAlive) && Date() < deadline { usleep(5000) }
  }

  /// The state letter and the parent of `pid`, from /proc/<pid>/stat ("pid (name) state
  /// parent …", where the name may hold spaces and parentheses: it ends at the last ')').
  private static func status(of pid: pid_t) -> (state: Character, parent: pid_t)? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let nameEnd = stat.lastIndex(of: ")")
    else { return nil }
    let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
    guard fields.count > 1, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
    return (state, parent)
  }
}
