import CVaultSystem
import Foundation
import Synchronization
import VaultCore

/// The signal handlers of the full-screen terminal, and everything they read.
///
/// - SIGINT, SIGTERM, SIGHUP, SIGQUIT: the terminal is restored at once and the event loop
///   gets `.quit`; a second one exits at once with status 128 + the signal.
/// - SIGTSTP (Ctrl-Z): the terminal is restored, the process stops as it would by default;
///   SIGCONT (`fg`) puts raw mode and the alternate screen back and posts `.redraw`.
/// - SIGWINCH: posts `.resize`.
/// - SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE: the terminal is restored, then the
///   signal goes on to the action it had before (by default, the process dies).
///
/// A handler runs on whichever thread the kernel picks, in the middle of anything, so it
/// only calls async-signal-safe functions (write, tcsetattr, sigaction, pthread_sigmask,
/// raise, _exit) and reads memory made before it was installed: atomics, and buffers
/// reached through pointers. (A global `var` would not do: Swift checks exclusive access
/// to it, and a handler interrupting an access would trap.) The byte sequences it writes
/// are made in advance.
///
/// The buffers handlers read are `HandlerMemory`, which says why that is safe; the byte
/// sequences they write are static strings, in the program's read-only memory. Signal
/// actions and masks are changed through `ProcessSignals`, which owns them.
///
/// Entering and leaving from ordinary code happens with these signals blocked on the
/// calling thread, so a handler never runs in the middle of it there; threads that the
/// viewer starts itself should block them too (`blockInCurrentThread()`), so that handlers
/// run on the main thread. Dispatch's worker threads already block them.
enum ScreenSignals {
  static let quitSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]
  static let crashSignals = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]
  /// The signals whose handlers restore or re-enter the screen, blocked around that work.
  static let screenSignals = quitSignals + [SIGTSTP, SIGCONT, SIGWINCH]

  /// Events waiting for the event loop, as bits of `pending`.
  enum Event: Int {
    case quit = 1
    case resize = 2
    case redraw = 4
    case wake = 8
  }

  static let pending = Atomic<Int>(0)
  static let quitRequests = Atomic<Int>(0)
  /// The last quit signal that arrived (0: none), for the exit status (128 + the signal).
  static let quitSignal = Atomic<Int32>(0)
  /// The program wants the full screen: from `FullScreenTerminal.init` to `restore()` or a
  /// quit signal, except inside `suspendRaw`. SIGCONT re-enters only then.
  static let engaged = Atomic<Bool>(false)
  /// Raw mode and the alternate screen are on.
  static let applied = Atomic<Bool>(false)
  /// The terminal's descriptor, or -1 when no full-screen terminal is set up.
  static let descriptor = Atomic<Int32>(-1)
  /// What frames are written to: a duplicate of the terminal's descriptor while the screen
  /// is applied, /dev/null (`null`) from the moment it is left. A handler that leaves
  /// while a frame is being written thus cuts the rest of it off; the `applied` check
  /// between slices alone could not, as the signal may come between check and write.
  static let drawing = Atomic<Int32>(-1)
  static let null = Atomic<Int32>(-1)
  /// [0]: the settings to restore; [1]: raw mode.
  static let settings = HandlerMemory(repeating: termios(), count: 2)

  /// Alternate screen, cursor hidden, screen cleared, bracketed paste on (pasted text comes
  /// marked, so that it is never taken for keys: "study" pasted would select and delete).
  static let enterSequence: StaticString = "\u{1B}[?1049h\u{1B}[?25l\u{1B}[?2004h\u{1B}[H\u{1B}[2J"
  /// String Terminator first: a signal may cut a kitty upload short, and the bytes after
  /// it must not be swallowed as part of that escape code.
  static let leaveHead: StaticString = "\u{1B}\\"
  /// Attributes reset, bracketed paste off, cursor shown, main screen.
  static let leaveTail: StaticString = "\u{1B}[0m\u{1B}[?2004l\u{1B}[?25h\u{1B}[?1049l"

  /// What `graphicsCleanup` holds, written between `leaveHead` and `leaveTail`.
  static let cleanupCapacity = 16384
  static let cleanup = HandlerMemory<UInt8>(repeating: 0, count: cleanupCapacity)
  static let cleanupCount = Atomic<Int>(0)
  /// Set while `cleanup` is being rewritten: a handler then skips it rather than send half.
  static let cleanupChanging = Atomic<Bool>(false)

  /// Handlers write a byte here to wake the event loop's poll. Made once per process and
  /// never closed, so that a late `wake()` from another thread never writes to a reused
  /// descriptor.
  static let wakePipe: (read: Int32, write: Int32) = {
    var ends: [Int32] = [-1, -1]
    guard vault_make_wake_pipe(&ends) == 0 else {
      fatalError("cannot make a pipe: \(String(cString: strerror(errno)))")
    }
    return (ends[0], ends[1])
  }()

  /// The action each signal had before, by signal number, and which were replaced.
  static let previousActions = HandlerMemory(repeating: sigaction(), count: 65)
  private static let replaced = Mutex<Set<Int32>>([])
  private static let installed = Atomic<Bool>(false)

  /// A crash handler needs a stack of its own when the crash is a stack overflow.
  static let alternateStackSize = 65536
  static let alternateStack = HandlerMemory<UInt8>(repeating: 0, count: alternateStackSize)

  // MARK: Setting up

  /// Takes over the signals for the terminal `descriptor`, whose settings are `saved` and
  /// which `raw` puts in raw mode; one terminal at a time.
  static func install(descriptor terminal: Int32, saved: termios, raw: termios) throws {
    let alreadyInstalled = installed.exchange(true, ordering: .sequentiallyConsistent)
    precondition(!alreadyInstalled, "one full-screen terminal at a time")
    let drawingDescriptor = fcntl(terminal, F_DUPFD_CLOEXEC, 0)
    let nullDescriptor = open("/dev/null", O_WRONLY | O_CLOEXEC)
    guard drawingDescriptor >= 0, nullDescriptor >= 0 else {
      let reason = String(cString: strerror(errno))
      if drawingDescriptor >= 0 { close(drawingDescriptor) }
      if nullDescriptor >= 0 { close(nullDescriptor) }
      installed.store(false, ordering: .sequentiallyConsistent)
      throw VaultError.io(path: "/dev/tty", reason: reason)
    }
    drawing.store(drawingDescriptor, ordering: .sequentiallyConsistent)
    null.store(nullDescriptor, ordering: .sequentiallyConsistent)
    // Everything a handler reads exists before the first handler does.
    _ = (settings, cleanup, wakePipe, previousActions, alternateStack)
    _ = cleanupChanging.load(ordering: .sequentiallyConsistent)
    drainWakePipe()
    settings[0] = saved
    settings[1] = raw
    cleanupCount.store(0, ordering: .sequentiallyConsistent)
    pending.store(0, ordering: .sequentiallyConsistent)
    quitRequests.store(0, ordering: .sequentiallyConsistent)
    quitSignal.store(0, ordering: .sequentiallyConsistent)
    applied.store(false, ordering: .sequentiallyConsistent)
    engaged.store(false, ordering: .sequentiallyConsistent)
    descriptor.store(terminal, ordering: .sequentiallyConsistent)
    provideAlternateStack()

    for signal in quitSignals { replace(signal, with: quitHandler, keepIgnored: true) }
    replace(SIGTSTP, with: stopHandler, keepIgnored: true)
    replace(SIGCONT, with: continueHandler, keepIgnored: false)
    replace(SIGWINCH, with: resizeHandler, keepIgnored: false)
    for signal in crashSignals { replace(signal, with: crashHandler, keepIgnored: false) }
  }

  /// Puts back the actions the signals had before `install`.
  static func uninstall() {
    guard installed.load(ordering: .sequentiallyConsistent) else { return }
    for signal in replaced.withLock({ $0 }) {
      ProcessSignals.putBack(signal, previousActions.pointer(Int(signal)))
    }
    replaced.withLock { $0 = [] }
    descriptor.store(-1, ordering: .sequentiallyConsistent)
    close(drawing.exchange(-1, ordering: .sequentiallyConsistent))
    close(null.exchange(-1, ordering: .sequentiallyConsistent))
    installed.store(false, ordering: .sequentiallyConsistent)
  }

  /// Installs `handler` for `signal`, remembering the action it replaces. With
  /// `keepIgnored`, a signal the process was started with ignored (`nohup`, a shell without
  /// job control) stays ignored.
  private static func replace(
    _ signal: Int32, with handler: @convention(c) (Int32) -> Void, keepIgnored: Bool
  ) {
    let installed = ProcessSignals.install(
      handler, for: signal, flags: SA_RESTART | SA_ONSTACK, keepingIgnored: keepIgnored,
      previous: previousActions.pointer(Int(signal)))
    if installed { replaced.withLock { _ = $0.insert(signal) } }
  }

  /// Gives this thread a signal stack unless it has one (Swift's runtime usually gives the
  /// main thread one for its crash reports).
  private static func provideAlternateStack() {
    var current = stack_t()
    guard sigaltstack(nil, &current) == 0, current.ss_flags & Int32(SS_DISABLE) != 0 else { return }
    var stack = stack_t(
      ss_sp: UnsafeMutableRawPointer(alternateStack.pointer()), ss_flags: 0, ss_size: alternateStackSize)
    sigaltstack(&stack, nil)
  }

  /// Keeps the screen signals off the calling thread (for the viewer's own worker threads).
  static func blockInCurrentThread() {
    ProcessSignals.block(screenSignals)
  }

  /// Runs `body` with the screen signals blocked on this thread.
  static func withSignalsBlocked<Result>(_ body: () throws -> Result) rethrows -> Result {
    try ProcessSignals.withBlocked(screenSignals, body)
  }

  /// Replaces what `leave()` writes between its head and tail (kitty deletions).
  static func setCleanup(_ bytes: [UInt8]) {
    precondition(bytes.count <= cleanupCapacity, "graphicsCleanup holds at most \(cleanupCapacity) bytes")
    cleanupChanging.store(true, ordering: .sequentiallyConsistent)
    bytes.withUnsafeBufferPointer { cleanup.pointer().update(from: $0.baseAddress!, count: $0.count) }
    cleanupCount.store(bytes.count, ordering: .sequentiallyConsistent)
    cleanupChanging.store(false, ordering: .sequentiallyConsistent)
  }

  static var cleanupBytes: [UInt8] {
    Array(
      UnsafeBufferPointer(
        start: cleanup.pointer(), count: cleanupCount.load(ordering: .sequentiallyConsistent)))
  }

  // MARK: Async-signal-safe work

  /// Leaves the alternate screen and restores the settings, if they are applied.
  static func leave() {
    guard applied.exchange(false, ordering: .sequentiallyConsistent) else { return }
    let terminal = descriptor.load(ordering: .sequentiallyConsistent)
    guard terminal >= 0 else { return }
    vault_replace_descriptor(
      null.load(ordering: .sequentiallyConsistent), drawing.load(ordering: .sequentiallyConsistent))
    writeAll(terminal, leaveHead)
    if !cleanupChanging.load(ordering: .sequentiallyConsistent) {
      writeAll(terminal, cleanup.pointer(), cleanupCount.load(ordering: .sequentiallyConsistent))
    }
    writeAll(terminal, leaveTail)
    // Waits until all of that is out, then drops unread input: keys typed for the viewer
    // must not reach the shell.
    tcsetattr(terminal, TCSAFLUSH, settings.pointer(0))
  }

  /// Puts raw mode and the alternate screen on (again).
  static func enter() {
    let terminal = descriptor.load(ordering: .sequentiallyConsistent)
    guard terminal >= 0 else { return }
    applied.store(true, ordering: .sequentiallyConsistent)
    vault_replace_descriptor(terminal, drawing.load(ordering: .sequentiallyConsistent))
    tcsetattr(terminal, TCSANOW, settings.pointer(1))
    writeAll(terminal, enterSequence)
  }

  /// Marks `event` as waiting and wakes the event loop.
  static func post(_ event: Event) {
    pending.bitwiseOr(event.rawValue, ordering: .sequentiallyConsistent)
    var byte = UInt8(truncatingIfNeeded: event.rawValue)
    // A full pipe already wakes the loop: a failed write loses nothing.
    _ = Glibc.write(wakePipe.write, &byte, 1)
  }

  static func writeAll(_ descriptor: Int32, _ sequence: StaticString) {
    writeAll(descriptor, sequence.utf8Start, sequence.utf8CodeUnitCount)
  }

  static func writeAll(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) {
    var offset = 0
    while offset < count {
      let written = Glibc.write(descriptor, bytes + offset, count - offset)
      if written < 0 && errno == EINTR { continue }
      if written <= 0 { return }
      offset += written
    }
  }

  /// Reads whatever the wake pipe holds (the events themselves are in `pending`).
  static func drainWakePipe() {
    var buffer = [UInt8](repeating: 0, count: 256)
    while Glibc.read(wakePipe.read, &buffer, buffer.count) > 0 {}
  }

  private static let quitHandler: @convention(c) (Int32) -> Void = { signal in
    let savedErrno = errno
    let requests = ScreenSignals.quitRequests.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
    ScreenSignals.quitSignal.store(signal, ordering: .sequentiallyConsistent)
    ScreenSignals.engaged.store(false, ordering: .sequentiallyConsistent)
    ScreenSignals.leave()
    if requests > 1 { _exit(128 + signal) }
    ScreenSignals.post(.quit)
    errno = savedErrno
  }

  private static let stopHandler: @convention(c) (Int32) -> Void = { signal in
    let savedErrno = errno
    ScreenSignals.leave()
    // Stop as the default action would: the handler is taken off and the signal, blocked
    // while its handler runs, let through for this one raise.
    var ours = sigaction()
    ProcessSignals.takeDefault(SIGTSTP, replaced: &ours)
    // Continued after the raise: SIGCONT's handler has re-entered the screen.
    ProcessSignals.withUnblocked(SIGTSTP) { raise(SIGTSTP) }
    ProcessSignals.putBack(SIGTSTP, &ours)
    errno = savedErrno
  }

  private static let continueHandler: @convention(c) (Int32) -> Void = { _ in
    let savedErrno = errno
    // Also after SIGSTOP, which left the screen as it was: the shell may have changed the
    // settings since, and the screen is drawn again anyway.
    if ScreenSignals.engaged.load(ordering: .sequentiallyConsistent) { ScreenSignals.enter() }
    ScreenSignals.post(.redraw)
    errno = savedErrno
  }

  private static let resizeHandler: @convention(c) (Int32) -> Void = { _ in
    let savedErrno = errno
    ScreenSignals.post(.resize)
    errno = savedErrno
  }

  private static let crashHandler: @convention(c) (Int32) -> Void = { signal in
    ScreenSignals.leave()
    ProcessSignals.putBack(signal, ScreenSignals.previousActions.pointer(Int(signal)))
    // Blocked until this handler returns, then delivered to the previous action; a fault
    // also happens again when the faulting instruction runs again.
    raise(signal)
  }
}
