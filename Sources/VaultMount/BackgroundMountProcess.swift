import Foundation
import VaultCore

/// The two processes of a mount in the background. A process that runs threads cannot fork
/// safely (another thread may hold a lock the child then never sees released), and
/// libfuse's loop runs many; so the parent starts its own binary again, in the foreground
/// mode, with the password (when one is needed) on a pipe as its standard input and a
/// readiness pipe as descriptor 3. The child mounts, starts a session of its own (so that
/// closing the terminal does not end it), says so on the pipe and lets go of the terminal;
/// the parent returns then. When the child fails, it has said why on the shared standard
/// error, and the parent learns its exit status.
public enum BackgroundMountProcess {
  /// How the child ended its part.
  public enum Outcome: Equatable {
    /// Mounted, and running in the background as this process.
    case mounted(pid_t)
    /// Ended before it mounted, with this exit status (128 + the signal that ended it).
    case failed(status: Int32)
  }

  /// Starts this binary as `arguments` (which must tell it to say it is mounted on
  /// descriptor 3, and to read `password`, when given, from standard input), and waits
  /// until it has mounted or ended. `folder` names the mount in errors.
  public static func start(_ arguments: [String], password: Password?, folder: String) throws -> Outcome {
    var ready: [Int32] = [0, 0]
    var secret: [Int32] = [0, 0]
    guard pipe(&ready) == 0, pipe(&secret) == 0 else {
      throw VaultError.io(
        path: folder, reason: "could not start the mount: \(String(cString: strerror(errno)))")
    }
    // Only the descriptors the child is given as 0 and 3 reach it.
    for descriptor in ready + secret { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    let child = try spawn(
      arguments, ready: ready[1], input: password == nil ? nil : secret[0], folder: folder)
    close(ready[1])
    close(secret[0])
    if let password {
      password.withUTF8Bytes { bytes in _ = write(secret[1], bytes.baseAddress, bytes.count) }
      _ = write(secret[1], "\n", 1)
    }
    close(secret[1])
    var mark: UInt8 = 0
    let got = read(ready[0], &mark, 1)
    close(ready[0])
    if got == 1 { return .mounted(child) }
    var status: Int32 = 0
    waitpid(child, &status, 0)
    let signal = status & 0x7f
    return .failed(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal)
  }

  private static func spawn(_ arguments: [String], ready: Int32, input: Int32?, folder: String) throws
    -> pid_t
  {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // dup2 onto itself would leave descriptor 3 close-on-exec.
    let readyDescriptor = ready == 3 ? fcntl(ready, F_DUPFD_CLOEXEC, 4) : ready
    posix_spawn_file_actions_adddup2(&actions, readyDescriptor, 3)
    if let input { posix_spawn_file_actions_adddup2(&actions, input, 0) }
    keepDescriptorsFromChildren()
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var child: pid_t = 0
    let result = posix_spawn(&child, "/proc/self/exe", &actions, nil, &argv, environ)
    guard result == 0 else {
      throw VaultError.io(
        path: folder, reason: "could not start the mount: \(String(cString: strerror(result)))")
    }
    return child
  }

  /// Marks every descriptor this process has close-on-exec, so that only those the child
  /// is given as 0 to 3 reach it: one by which the program that started the background
  /// mount waits for it to end (Foundation's Process has one) would otherwise stay open for
  /// as long as the mount, and that program would wait as long.
  private static func keepDescriptorsFromChildren() {
    let listed = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in listed.compactMap({ Int32($0) }) where descriptor > 2 {
      _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
    }
  }

  /// In the child, once mounted: a session of its own, the word on the readiness pipe,
  /// and standard input and output let go (later problems go nowhere: no terminal waits).
  public static func detach(saying descriptor: Int32) {
    setsid()
    var mark = UInt8(ascii: "m")
    _ = write(descriptor, &mark, 1)
    close(descriptor)
    let null = open("/dev/null", O_RDWR)
    for standard in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] { dup2(null, standard) }
    if null > 2 { close(null) }
  }
}
