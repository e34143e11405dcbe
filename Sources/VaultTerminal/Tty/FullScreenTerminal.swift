import Foundation
import VaultCore

/// What the full-screen event loop wakes up for.
enum TerminalEvent: Equatable {
  case key(Key)
  /// The window changed size (SIGWINCH): read `size` and lay out again.
  case resize
  /// Draw everything again: the process was continued after Ctrl-Z (the terminal may have
  /// been used meanwhile, and kitty forgets the images of a screen it leaves), or a
  /// `suspendRaw` prompt ended.
  case redraw
  /// SIGINT, SIGTERM, SIGHUP or SIGQUIT, or the terminal went away. The terminal is already
  /// restored; the loop should end. Every later call returns `.quit` again.
  case quit
  /// `wake()` was called (another thread has something to show).
  case wake
  /// kitty answered a graphics command (only failures are asked for): `i=3,p=1;ENOENT:…`.
  case graphicsReply(String)
}

/// The controlling terminal in raw mode on the alternate screen, for `vault view`: keys
/// arrive one by one and unechoed, Ctrl-C and Ctrl-Z still send their signals, Ctrl-S and
/// Ctrl-Q arrive as keys. Whatever happens, the terminal is put back as it was: by
/// `restore()` (call it in a `defer`, so that thrown errors restore too; it may be called
/// any number of times), in `deinit`, and by the signal handlers of `ScreenSignals`. One
/// instance at a time.
public final class FullScreenTerminal {
  /// How long an ESC waits for the rest of a sequence before it counts as the Escape key.
  static let escapeTimeout = 0.05
  /// Input that comes this soon after the input before it was sent with it (a paste, a
  /// terminal's burst), not typed: no one types two keys 15 ms apart.
  public static let typedGap = 0.015

  let descriptor: Int32
  private let closesDescriptor: Bool
  private var decoder = KeyDecoder()
  /// Keys read and not yet handled, each with whether it was typed (see `lastKeyWasTyped`).
  private var keys: [(key: Key, typed: Bool)] = []
  /// kitty's replies read and not yet handled (at most `KeyDecoder.longestKeptString`).
  private var graphicsReplies: [String] = []

  /// Whether keys or replies already read wait to be handled: a frame drawn now would be
  /// drawn again at once (a typed-ahead or pasted burst is one frame, not one a key).
  var hasWaitingInput: Bool { !keys.isEmpty || !graphicsReplies.isEmpty }
  /// Whether the key `nextEvent` returned last came on its own: the only key of its read,
  /// read at least `typedGap` after the input before it. Pasted text and a burst of input
  /// never are: a question that changes the space (delete?) takes only a typed answer.
  private(set) var lastKeyWasTyped = false
  private var lastReadAt = -Double.infinity
  /// The monotonic clock (seconds) that times input and waits: `now`, or a clock a test
  /// moves on past `typedGap` instead of sleeping through it.
  var clock: () -> Double = FullScreenTerminal.now
  /// Set when a paste ends, until a key is typed on its own: input in between came with
  /// the paste (see `readInput`).
  private var followsPaste = false
  /// When the decoder started waiting for the rest of a sequence (monotonic seconds).
  private var incompleteSince: Double?
  private var output: [UInt8] = []
  private var readBuffer = [UInt8](repeating: 0, count: 4096)
  private var restored = false

  /// Opens `/dev/tty` and takes it over. Throws `Unavailable` when stdin or stdout is not a
  /// terminal.
  public convenience init() throws {
    // Keys are read from /dev/tty, not stdin, so stdin may be a pipe (a password given on
    // it with --password-file -); the screen must be what stdout shows.
    try Self.requireTerminals(stdin: true, stdout: isatty(STDOUT_FILENO) == 1)
    let descriptor = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
    guard descriptor >= 0 else {
      throw Unavailable(reason: "/dev/tty cannot be opened (\(String(cString: strerror(errno))))")
    }
    try self.init(descriptor: descriptor, closesDescriptor: true)
  }

  /// Takes over the terminal `descriptor` (a pty's in tests).
  init(descriptor: Int32, closesDescriptor: Bool) throws {
    var saved = termios()
    guard tcgetattr(descriptor, &saved) == 0 else {
      let reason = String(cString: strerror(errno))
      if closesDescriptor { close(descriptor) }
      throw Unavailable(reason: "its settings cannot be read (\(reason))")
    }
    self.descriptor = descriptor
    self.closesDescriptor = closesDescriptor
    do {
      try ScreenSignals.install(descriptor: descriptor, saved: saved, raw: Self.rawMode(from: saved))
    } catch {
      if closesDescriptor { close(descriptor) }
      throw error
    }
    ScreenSignals.withSignalsBlocked {
      ScreenSignals.engaged.store(true, ordering: .sequentiallyConsistent)
      ScreenSignals.enter()
    }
  }

  deinit {
    restore()
    if closesDescriptor { close(descriptor) }
  }

  /// The settings of raw mode: no echo, no line editing, no Ctrl-V/Ctrl-O; Ctrl-S/Ctrl-Q
  /// and CR arrive as they are typed. Signals (ISIG) and output processing stay on.
  static func rawMode(from saved: termios) -> termios {
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | IEXTEN)
    raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR | IGNCR | ISTRIP)
    withUnsafeMutableBytes(of: &raw.c_cc) { characters in
      characters[Int(VMIN)] = 1
      characters[Int(VTIME)] = 0
    }
    return raw
  }

  // MARK: Size

  /// The window in cells, and one cell's size in pixels when the terminal reports it.
  var size: (columns: Int, rows: Int, cell: PixelSize?) {
    var window = winsize()
    guard ioctl(descriptor, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
      return (80, 24, nil)
    }
    let columns = Int(window.ws_col)
    let rows = Int(window.ws_row)
    guard window.ws_xpixel >= window.ws_col, window.ws_ypixel >= window.ws_row else {
      return (columns, rows, nil)
    }
    // A terminal's word, capped: pictures are sized from it.
    let cell = PixelSize(
      width: min(Int(window.ws_xpixel) / columns, Self.largestCell),
      height: min(Int(window.ws_ypixel) / rows, Self.largestCell))
    return (columns, rows, cell)
  }

  /// The largest cell side in pixels believed (fonts are far smaller).
  static let largestCell = 256

  /// Asks the terminal for its cell size (`CSI 16 t`), for terminals whose window size
  /// has no pixels; nil when no answer comes within `timeout` seconds. Keys typed meanwhile
  /// are kept for `nextEvent`.
  func queryCellSize(timeout: Double = 0.2) -> PixelSize? {
    decoder.clearCellSizeReport()
    write("\u{1B}[16t")
    flush()
    let deadline = clock() + timeout
    while decoder.cellSizeReport == nil {
      let remaining = deadline - clock()
      guard remaining > 0 else { break }
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32((remaining * 1000).rounded(.up)))
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0, poller.revents & Int16(POLLIN) != 0, readInput() else { break }
    }
    return decoder.cellSizeReport
  }

  // MARK: Output

  /// Adds `bytes` to what `flush()` sends. A large array (a kitty upload) is taken as it is
  /// when nothing else is waiting, rather than copied, and so is wiped in place once sent;
  /// a smaller one is copied: it may be a constant the caller writes again (the end of a
  /// synchronized frame, which wiped ended every later frame in NULs).
  func write(_ bytes: [UInt8]) {
    if output.isEmpty, bytes.count >= Self.takenWhole {
      output = bytes
    } else {
      output.append(contentsOf: bytes)
    }
  }

  /// Whether a key is waiting: a frame then leaves out what only later frames need.
  var hasPendingInput: Bool {
    if hasWaitingInput { return true }
    var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    return poll(&poller, 1, 0) > 0 && poller.revents & Int16(POLLIN) != 0
  }

  /// Drops what was typed and not yet handled (queued keys and the terminal's input
  /// buffer): a question must be answered by a key pressed after it was asked.
  func discardPendingInput() {
    keys.removeAll()
    decoder = KeyDecoder()
    incompleteSince = nil
    tcflush(descriptor, TCIFLUSH)
  }

  func write(_ text: String) {
    output.append(contentsOf: text.utf8)
  }

  /// Sends what was written. Nothing is sent once the terminal is restored (after a quit
  /// signal, say, even one that comes in the middle), so that no drawing lands on the main
  /// screen. The buffer is wiped after: it held pixels and names.
  func flush() {
    defer {
      // `output` may share its buffer with the caller's array (a kitty upload written
      // whole): zeroed in place, not copied and the copy zeroed.
      output.wipeShared()
      // A kitty upload's buffer is tens of megabytes: it is not kept for the next frame.
      if output.capacity > Self.keptCapacity { output = [] } else { output.removeAll(keepingCapacity: true) }
    }
    output.withUnsafeBufferPointer { bytes in
      var offset = 0
      // In slices, so that a restored terminal ends a large write early (ScreenSignals.drawing
      // is what keeps the rest off the screen).
      while offset < bytes.count, ScreenSignals.applied.load(ordering: .sequentiallyConsistent) {
        let drawing = ScreenSignals.drawing.load(ordering: .sequentiallyConsistent)
        let written = Glibc.write(drawing, bytes.baseAddress! + offset, min(Self.slice, bytes.count - offset))
        if written < 0 && (errno == EINTR || errno == EAGAIN) { continue }
        if written <= 0 { return }
        offset += written
      }
    }
  }

  private static let slice = 65536
  private static let keptCapacity = 1 << 20
  /// The size from which `write` takes an array as it is: a picture's upload.
  private static let takenWhole = 1 << 16

  /// Bytes written when the terminal is restored, before it leaves the alternate screen
  /// (on every path, signals included): set it to kitty deletions
  /// (`KittyGraphics.delete(id:)` of each image still uploaded, `deleteAll()`) once images
  /// are sent, so that no photo's pixels stay in the terminal's memory. At most 16 KiB.
  var graphicsCleanup: [UInt8] {
    get { ScreenSignals.cleanupBytes }
    set { ScreenSignals.setCleanup(newValue) }
  }

  // MARK: Events

  /// Waits for the next event, at most `timeout` seconds (nil: as long as it takes); nil
  /// when the time is up. A quit comes first, then a redraw, a resize, then keys in the
  /// order typed, then a wake-up: a playing video wakes the loop for every frame, and
  /// when drawing one took longer than a frame (a loaded machine) the wake-ups came first
  /// every time, so that `q` waited for the video's end.
  func nextEvent(timeout: Double?) -> TerminalEvent? {
    let deadline = timeout.map { clock() + $0 }
    var polled = false
    while true {
      ScreenSignals.drainWakePipe()
      if let event = takeSignalledEvent() { return event }
      if !graphicsReplies.isEmpty { return .graphicsReply(graphicsReplies.removeFirst()) }
      if !keys.isEmpty {
        let next = keys.removeFirst()
        lastKeyWasTyped = next.typed
        return .key(next.key)
      }
      if restored { return .quit }
      if hasPendingInput {
        if !readInput() { return endOfTerminal() }
        if !keys.isEmpty || incompleteSince == nil { continue }
      }
      if takeSignalledEvent(.wake) { return .wake }
      if let since = incompleteSince, clock() >= since + Self.escapeTimeout {
        keys += decoder.timeOut().map { ($0, true) }
        incompleteSince = nil
        continue
      }
      // Polled at least once, so that a zero timeout still reads what is there.
      if polled, let deadline, clock() >= deadline { return nil }

      var wait = deadline.map { max(0, $0 - clock()) }
      if let since = incompleteSince {
        let escapeLeft = max(0, since + Self.escapeTimeout - clock())
        wait = min(wait ?? escapeLeft, escapeLeft)
      }
      var pollers = [
        pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
        pollfd(fd: ScreenSignals.wakePipe.read, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&pollers, 2, wait.map { Int32(($0 * 1000).rounded(.up)) } ?? -1)
      polled = true
      if ready < 0 {
        if errno == EINTR { continue }
        return endOfTerminal()
      }
      if pollers[0].revents & Int16(POLLIN) != 0 {
        if !readInput() { return endOfTerminal() }
      } else if pollers[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
        return endOfTerminal()
      }
    }
  }

  /// Wakes `nextEvent` with `.wake`; safe from any thread and from a signal handler.
  func wake() {
    Self.wake()
  }

  /// `wake()` without the instance, for threads that outlive it: a late call is harmless.
  static func wake() {
    ScreenSignals.post(.wake)
  }

  /// Reads what the terminal has; false when it is gone (hung up, or an error).
  private func readInput() -> Bool {
    let count = read(descriptor, &readBuffer, readBuffer.count)
    if count < 0 && (errno == EINTR || errno == EAGAIN) { return true }
    guard count > 0 else { return false }
    let now = clock()
    let alone = now - lastReadAt >= Self.typedGap
    lastReadAt = now
    let decoded = decoder.feed(Array(readBuffer[0..<count]))
    graphicsReplies += decoder.takeGraphicsReplies().prefix(
      max(0, KeyDecoder.longestKeptString - graphicsReplies.count))
    // A clipboard holding a forged paste end (ESC [201~) must not have the rest of it read
    // as keys: after a paste, input is dropped until a key comes on its own. The rest of a
    // paste comes with it, or in reads as full as the terminal's writes.
    let typed = alone && decoded.count == 1 && count <= 8
    for key in decoded {
      if case .paste = key {
        keys.append((key, false))
        followsPaste = true
        continue
      }
      if followsPaste && !typed { continue }
      followsPaste = false
      keys.append((key, typed))
    }
    if decoder.isIncomplete {
      if incompleteSince == nil { incompleteSince = clock() }
    } else {
      incompleteSince = nil
    }
    return true
  }

  /// The terminal hung up: restore what can be, and quit.
  private func endOfTerminal() -> TerminalEvent {
    ScreenSignals.withSignalsBlocked {
      ScreenSignals.engaged.store(false, ordering: .sequentiallyConsistent)
      ScreenSignals.leave()
    }
    ScreenSignals.pending.bitwiseOr(ScreenSignals.Event.quit.rawValue, ordering: .sequentiallyConsistent)
    return .quit
  }

  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  // MARK: Leaving

  /// Leaves the alternate screen, shows the cursor, writes `graphicsCleanup`, and puts the
  /// terminal's settings back as they were (TCSAFLUSH: unread keys are dropped); then gives
  /// the signals back their earlier actions. Only the first call does anything.
  public func restore() {
    guard !restored else { return }
    restored = true
    ScreenSignals.withSignalsBlocked {
      ScreenSignals.engaged.store(false, ordering: .sequentiallyConsistent)
      ScreenSignals.leave()
    }
    ScreenSignals.uninstall()
    output.wipe()
    output = []
  }

  /// Runs `body` with the terminal as it was before (settings, main screen, cursor shown),
  /// for a line prompt; then takes it over again and posts `.redraw`. After a quit signal
  /// during `body`, the terminal stays restored.
  func suspendRaw<Result>(_ body: () throws -> Result) rethrows -> Result {
    flush()
    ScreenSignals.withSignalsBlocked {
      ScreenSignals.engaged.store(false, ordering: .sequentiallyConsistent)
      ScreenSignals.leave()
    }
    defer {
      ScreenSignals.withSignalsBlocked {
        if !restored && ScreenSignals.quitRequests.load(ordering: .sequentiallyConsistent) == 0 {
          ScreenSignals.engaged.store(true, ordering: .sequentiallyConsistent)
          ScreenSignals.enter()
        }
      }
      ScreenSignals.post(.redraw)
    }
    return try body()
  }

  /// Keeps the terminal's signals off the calling thread; a thread the viewer starts
  /// itself calls this first, so that the handlers run on the main thread (see
  /// `ScreenSignals`).
  static func blockSignalsInCurrentThread() {
    ScreenSignals.blockInCurrentThread()
  }
}

extension FullScreenTerminal {
  /// The quit signal that ended the screen (SIGTERM, say), if one did.
  var quitSignal: Int32? {
    let signal = ScreenSignals.quitSignal.load(ordering: .sequentiallyConsistent)
    return signal == 0 ? nil : signal
  }
}
