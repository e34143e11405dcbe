import Foundation
import Synchronization

/// An advisory lock (flock) on a space folder: exclusive for writers, shared for readers.
/// Released when the value is released or the process ends.
///
/// A writer that finds the lock taken waits at most `waitLimit` seconds and then fails
/// with `.spaceBusy`, naming the command that holds it (read from /proc/locks): a writer
/// that stays (an import of a thousand photos) never makes another writer hang without a
/// word. A reader waits as long as it takes (a long import is no reason for `list` to
/// fail), and says what it waits for.
final class DirectoryLock {
  enum Mode { case shared, exclusive }

  private let descriptor: Int32
  /// The locked folder itself, whatever it is named now.
  let folder: FolderIdentity

  /// `expected`: the folder a space that stays open (`vault view`) was opened on; a folder
  /// found at its path since (the old password's path after `vault passwd`, and a space
  /// made there later) is not that space, and fails with `.spaceMoved`.
  init(
    path: String, mode: Mode, waitingAtMost waitLimit: Double? = nil,
    expecting expected: FolderIdentity? = nil
  )
    throws
  {
    let waitLimit = waitLimit ?? (mode == .exclusive ? Self.waitLimit : .infinity)
    descriptor = openVaultFolder(path)
    guard descriptor >= 0 else {
      // The space was found a moment ago (or, for a long-running reader, when it opened).
      if errno == ENOENT { throw VaultError.spaceMoved }
      throw VaultError.posix(path)
    }
    let operation = (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
    let start = Self.now()
    var pause = 0.005
    var announced = false
    while flock(descriptor, operation) != 0 {
      let code = errno
      if code == EINTR { continue }
      guard code == EWOULDBLOCK else {
        close(descriptor)
        throw VaultError.posix(path, code)
      }
      let waited = Self.now() - start
      if waited >= waitLimit {
        let holder = LockHolder.find(lockedFolder: descriptor)
        close(descriptor)
        throw VaultError.spaceBusy(holder: holder?.description, waited: waitLimit)
      }
      if !announced, waited >= Self.announceAfter {
        announced = true
        Self.waitObserver.withLock { $0 }?(
          LockHolder.find(lockedFolder: descriptor)?.description, waitLimit.isFinite ? waitLimit : nil)
      }
      // Short at first (a commit by `vault serve` takes milliseconds), then at most a
      // tenth of a second, so that the lock is taken soon after it is let go.
      let sleep = min(pause, max(0, waitLimit - waited))
      usleep(useconds_t(sleep * 1_000_000))
      pause = min(pause * 2, 0.1)
    }
    // `vault passwd` renames the space's folder under its exclusive lock: a command that
    // waited for that lock holds it now on the folder under its new name, and would read
    // whatever is at the old path (nothing, or a space made since with the old password).
    var locked = stat()
    guard fstat(descriptor, &locked) == 0, FolderIdentity(path: path) == FolderIdentity(locked),
      expected == nil || expected == FolderIdentity(locked)
    else {
      close(descriptor)
      throw VaultError.spaceMoved
    }
    folder = FolderIdentity(locked)
  }

  deinit {
    close(descriptor)
  }

  /// How long a command waits for a lock another command holds: `$VAULT_LOCK_WAIT`
  /// seconds, else 10.
  static let waitLimit: Double = {
    if let text = ProcessInfo.processInfo.environment["VAULT_LOCK_WAIT"], let seconds = Double(text),
      seconds.isFinite, seconds >= 0
    {
      return seconds
    }
    return 10
  }()

  /// After this long, a waiting command says what it waits for.
  static let announceAfter = 0.5

  /// Told once per wait that lasts longer than `announceAfter`, with the command holding
  /// the lock when it is known, and how long the wait may last (nil: a reader's, unbounded). Nil by default: the CLI sets it to print a line.
  static let waitObserver = Mutex<(@Sendable (String?, Double?) -> Void)?>(nil)

  private static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}

/// A folder as the file system knows it (device and inode), which a rename keeps.
struct FolderIdentity: Equatable, Sendable {
  let device: UInt64
  let inode: UInt64

  init(_ status: stat) {
    device = UInt64(status.st_dev)
    inode = UInt64(status.st_ino)
  }

  /// The folder at `path` now; nil when nothing is there.
  init?(path: String) {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    self.init(status)
  }
}

extension Space {
  /// Sets what is told when a command starts waiting for a space another command holds
  /// (see `DirectoryLock`); nil to stay silent (a full-screen viewer).
  public static func onLockWait(_ observer: (@Sendable (_ holder: String?, _ limit: Double?) -> Void)?) {
    DirectoryLock.waitObserver.withLock { $0 = observer }
  }

}

/// The process that holds a flock on a folder, as the kernel lists it in /proc/locks.
struct LockHolder: CustomStringConvertible {
  let processID: Int32
  /// The program's name and its subcommand, when it has one: `vault serve`.
  let command: String?

  var description: String {
    if processID == getpid() { return "this very process (pid \(processID))" }
    guard let command else { return "process \(processID)" }
    return "\(command) (pid \(processID))"
  }

  /// The first process with a granted lock on the file `descriptor` is open on.
  static func find(lockedFolder descriptor: Int32) -> LockHolder? {
    var status = stat()
    guard fstat(descriptor, &status) == 0,
      let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
    else { return nil }
    let device = UInt64(status.st_dev)
    let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
    let minor = (device & 0xff) | ((device >> 12) & ~UInt64(0xff))
    let file = String(format: "%02x:%02x:%llu", major, minor, UInt64(status.st_ino))
    for line in table.split(separator: "\n") {
      // "1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF"; a waiter's line has "->".
      let fields = line.split(separator: " ")
      guard fields.count >= 6, fields[1] == "FLOCK", fields[5] == file, let pid = Int32(fields[4]), pid > 0
      else { continue }
      return LockHolder(processID: pid, command: command(of: pid))
    }
    return nil
  }

  private static func command(of pid: Int32) -> String? {
    guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !data.isEmpty else {
      return nil
    }
    let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    guard let program = arguments.first.map({ ($0 as NSString).lastPathComponent }) else { return nil }
    // Only a subcommand name is shown: other arguments may be paths the user would not
    // want printed in someone else's terminal.
    if arguments.count > 1, let subcommand = arguments.dropFirst().first(where: { !$0.hasPrefix("-") }),
      subcommand.allSatisfy({ $0.isLetter || $0 == "-" }), subcommand.count <= 20
    {
      return TerminalSafeText.escaped("\(program) \(subcommand)")
    }
    return TerminalSafeText.escaped(program)
  }
}
