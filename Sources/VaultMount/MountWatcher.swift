import Foundation
import Synchronization
import VaultCore

/// Watches the folders a space's writers change (the space says which) with inotify, and
/// calls `reload` once the writes of another command have settled: a change shows in the
/// mount within about a second of the command that made it.
final class MountWatcher: Sendable {
  /// The inotify instance, watching already when `init` returns: a change made once the
  /// mount said it was ready is seen even before the watcher's thread runs (on a loaded
  /// machine a journal moved away right after "mounted" was never seen, and the mount kept
  /// its tree without the warning).
  private let descriptor: Int32
  private let reload: @Sendable () -> Void
  private let stopped = Atomic(false)
  /// Quiet time after the last write before reading the space again.
  static let settle: Int32 = 200
  /// A burst of writes is read at least this often, in milliseconds.
  static let longest = 2000

  init(space: Space, reload: @escaping @Sendable () -> Void) {
    descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    let events = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE)
    if descriptor >= 0 {
      for path in [space.directory, space.journalDirectory] { inotify_add_watch(descriptor, path, events) }
    }
    self.reload = reload
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }

  func start() {
    let thread = Thread { [self] in
      // Signals are for the main thread, where libfuse's handler ends the loop.
      var all = sigset_t()
      sigfillset(&all)
      pthread_sigmask(SIG_BLOCK, &all, nil)
      watch()
    }
    thread.name = "vault mount watcher"
    thread.start()
  }

  func stop() {
    stopped.store(true, ordering: .relaxed)
  }

  private var isStopped: Bool { stopped.load(ordering: .relaxed) }

  private func watch() {
    guard descriptor >= 0 else { return }
    var pendingSince: Date?
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while !isStopped {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, pendingSince == nil ? 1000 : Self.settle)
      if ready > 0 {
        while read(descriptor, &buffer, buffer.count) > 0 {}
        if pendingSince == nil { pendingSince = Date() }
        if let since = pendingSince, Date().timeIntervalSince(since) * 1000 < Double(Self.longest) {
          continue
        }
      }
      guard pendingSince != nil, !isStopped else { continue }
      pendingSince = nil
      reload()
    }
  }
}
