import CVaultSystem
import Foundation
import Synchronization

/// Starts helper tools (rclone) from one thread that lives as long as the process. Each
/// tool gets SIGKILL as its parent-death signal, which the kernel sends when the *thread*
/// that started it ends: started from a pool's thread that comes and goes, a tool could be
/// killed in the middle of a transfer; started from here, it dies only with vault (a vault
/// killed during a backup leaves no rclone writing on).
enum ToolStarter {
  /// Starts `path` with `arguments` (its name first) and `environment` ("NAME=value"), its
  /// stdout on `output` and its stderr on `errors`; returns its pid, or the errno value
  /// of what failed.
  static func start(
    _ path: String, arguments: [String], environment: [String], output: Int32, errors: Int32
  ) -> Result<pid_t, ToolStartFailure> {
    let request = Request(
      path: path, arguments: arguments, environment: environment, output: output, errors: errors)
    _ = thread
    pending.withLock { $0.append(request) }
    wake.signal()
    request.done.wait()
    return request.result
  }

  /// One start asked of the thread. `@unchecked Sendable`: `result` is written by the
  /// starting thread before `done` is signalled, and read by the asking one after.
  private final class Request: @unchecked Sendable {
    let path: String
    let arguments: [String]
    let environment: [String]
    let output: Int32
    let errors: Int32
    var result: Result<pid_t, ToolStartFailure> = .failure(ToolStartFailure(code: EAGAIN))
    let done = DispatchSemaphore(value: 0)

    init(path: String, arguments: [String], environment: [String], output: Int32, errors: Int32) {
      self.path = path
      self.arguments = arguments
      self.environment = environment
      self.output = output
      self.errors = errors
    }

    func start() {
      var pid: pid_t = 0
      let status = withCStringArray(arguments) { argv in
        withCStringArray(environment) { envp in vault_spawn_tool(path, argv, envp, output, errors, &pid) }
      }
      result = status == 0 ? .success(pid) : .failure(ToolStartFailure(code: status))
      done.signal()
    }
  }

  private static let pending = Mutex<[Request]>([])
  private static let wake = DispatchSemaphore(value: 0)

  /// The starting thread, started at the first use; it never ends.
  private static let thread: Bool = {
    let thread = Thread {
      while true {
        wake.wait()
        let requests = pending.withLock { queued in
          defer { queued = [] }
          return queued
        }
        for request in requests { request.start() }
      }
    }
    thread.name = "vault-tool-starter"
    thread.start()
    return true
  }()
}
