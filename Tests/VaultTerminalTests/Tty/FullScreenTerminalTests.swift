import Foundation
import VaultCore
import XCTest

@testable import VaultTerminal

/// The full-screen terminal driven on a pseudo-terminal in this process: the test holds
/// the master side (what a terminal emulator would see and type), the terminal under test
/// the slave side.
final class FullScreenTerminalTests: XCTestCase {
  var master: Int32 = -1
  var slave: Int32 = -1
  var original = termios()
  /// What the master side has read so far.
  var seen = ""

  /// A limit only a hang reaches, however loaded the machine.
  static let hangLimit = 60.0

  override func setUpWithError() throws {
    XCTAssertEqual(openpty(&master, &slave, nil, nil, nil), 0)
    XCTAssertEqual(tcgetattr(slave, &original), 0)
    XCTAssertNotEqual(original.c_lflag & tcflag_t(ICANON), 0, "a new pty starts in cooked mode")
  }

  override func tearDown() {
    close(master)
    close(slave)
  }

  func makeTerminal() throws -> FullScreenTerminal {
    try FullScreenTerminal(descriptor: slave, closesDescriptor: false)
  }

  /// Reads the master side until `text` has appeared after `seen`'s current end; returns
  /// what came, and fails if it never does.
  @discardableResult
  func read(until text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(Self.hangLimit)
    while !String(decoding: received, as: UTF8.self).contains(text), Date() < deadline {
      var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 65536)
      let count = Glibc.read(master, &buffer, buffer.count)
      if count > 0 { received += buffer[0..<count] }
    }
    let output = String(decoding: received, as: UTF8.self)
    XCTAssertTrue(
      output.contains(text), "never saw \(text.debugDescription) in \(output.debugDescription)", file: file,
      line: line)
    seen += output
    return output
  }

  func type(_ text: String) {
    let bytes = Array(text.utf8)
    XCTAssertEqual(Glibc.write(master, bytes, bytes.count), bytes.count)
  }

  func settings() -> termios {
    var current = termios()
    XCTAssertEqual(tcgetattr(slave, &current), 0)
    return current
  }

  func assertSettingsAreTheOriginal(file: StaticString = #filePath, line: UInt = #line) {
    let current = settings()
    XCTAssertEqual(current.c_iflag, original.c_iflag, "c_iflag", file: file, line: line)
    XCTAssertEqual(current.c_oflag, original.c_oflag, "c_oflag", file: file, line: line)
    XCTAssertEqual(current.c_cflag, original.c_cflag, "c_cflag", file: file, line: line)
    XCTAssertEqual(current.c_lflag, original.c_lflag, "c_lflag", file: file, line: line)
    XCTAssertEqual(current.c_line, original.c_line, "c_line", file: file, line: line)
    XCTAssertEqual(cfgetispeed([current]), cfgetispeed([original]), file: file, line: line)
    XCTAssertEqual(cfgetospeed([current]), cfgetospeed([original]), file: file, line: line)
    var currentCharacters = current.c_cc
    var originalCharacters = original.c_cc
    XCTAssertEqual(
      withUnsafeBytes(of: &currentCharacters) { Array($0) },
      withUnsafeBytes(of: &originalCharacters) { Array($0) },
      "c_cc", file: file, line: line)
  }

  func assertRaw(file: StaticString = #filePath, line: UInt = #line) {
    let raw = settings()
    XCTAssertEqual(
      raw.c_lflag & tcflag_t(ICANON | ECHO | IEXTEN), 0, "no line editing, no echo", file: file, line: line)
    XCTAssertNotEqual(
      raw.c_lflag & tcflag_t(ISIG), 0, "Ctrl-C and Ctrl-Z still signal", file: file, line: line)
    XCTAssertEqual(
      raw.c_iflag & tcflag_t(IXON | ICRNL), 0, "Ctrl-S/Q and CR arrive as typed", file: file, line: line)
    var characters = raw.c_cc
    XCTAssertEqual(withUnsafeBytes(of: &characters) { $0[Int(VMIN)] }, 1, file: file, line: line)
  }

  func handler(of signal: Int32) -> Int {
    var action = sigaction()
    sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
  }

  // MARK: Entering and restoring

  func testRawModeOnTheAlternateScreenThenEverythingBackExactly() throws {
    let terminal = try makeTerminal()
    assertRaw()
    read(until: "\u{1B}[?1049h\u{1B}[?25l")
    terminal.restore()
    read(until: "\u{1B}[?25h\u{1B}[?1049l")
    assertSettingsAreTheOriginal()
    // Restoring again changes nothing and writes nothing.
    terminal.restore()
    type("")
    XCTAssertEqual(Glibc.write(slave, "end", 3), 3)
    XCTAssertEqual(read(until: "end"), "end")
    assertSettingsAreTheOriginal()
  }

  func testDeinitRestores() throws {
    var terminal: FullScreenTerminal? = try makeTerminal()
    read(until: "\u{1B}[?1049h")
    XCTAssertNotNil(terminal)
    terminal = nil
    read(until: "\u{1B}[?1049l")
    assertSettingsAreTheOriginal()
  }

  func testTheSignalActionsComeBackAfterRestore() throws {
    let before = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT, SIGWINCH, SIGSEGV, SIGABRT].map(
      handler(of:))
    let terminal = try makeTerminal()
    XCTAssertNotEqual(handler(of: SIGTERM), before[1])
    terminal.restore()
    XCTAssertEqual(
      [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGCONT, SIGWINCH, SIGSEGV, SIGABRT].map(handler(of:)),
      before)
  }

  func testGraphicsCleanupIsWrittenBeforeLeavingTheAlternateScreen() throws {
    let terminal = try makeTerminal()
    terminal.graphicsCleanup = KittyGraphics.delete(id: 5) + KittyGraphics.deleteAll()
    XCTAssertEqual(terminal.graphicsCleanup, KittyGraphics.delete(id: 5) + KittyGraphics.deleteAll())
    terminal.restore()
    let output = read(until: "\u{1B}[?1049l")
    let cleanup = String(decoding: KittyGraphics.delete(id: 5) + KittyGraphics.deleteAll(), as: UTF8.self)
    let position = try XCTUnwrap(output.range(of: cleanup))
    XCTAssertLessThan(position.upperBound, try XCTUnwrap(output.range(of: "\u{1B}[?1049l")).lowerBound)
  }

  /// The reason names what is not a terminal and no command (the program words what to do).
  func testWithoutTerminalsTheErrorSaysWhichIsNotOne() {
    for (stdin, stdout, reason) in [
      (false, true, "stdin is not a terminal"), (true, false, "stdout is not a terminal"),
      (false, false, "stdin and stdout are not a terminal"),
    ] {
      XCTAssertThrowsError(try FullScreenTerminal.requireTerminals(stdin: stdin, stdout: stdout)) { error in
        XCTAssertEqual((error as? FullScreenTerminal.Unavailable)?.reason, reason)
      }
    }
    XCTAssertNoThrow(try FullScreenTerminal.requireTerminals(stdin: true, stdout: true))
  }

  // MARK: Output

  func testFlushSendsWhatWasWrittenAndNothingOnceRestored() throws {
    let terminal = try makeTerminal()
    read(until: "\u{1B}[?1049h")
    terminal.write("status ")
    terminal.write(Array("line".utf8))
    XCTAssertEqual(Glibc.write(slave, "<", 1), 1)
    terminal.flush()
    XCTAssertEqual(Glibc.write(slave, ">", 1), 1)
    XCTAssertTrue(read(until: ">").hasSuffix("<status line>"))
    terminal.restore()
    read(until: "\u{1B}[?1049l")
    terminal.write("after")
    terminal.flush()
    XCTAssertEqual(Glibc.write(slave, "end", 3), 3)
    XCTAssertEqual(read(until: "end"), "end", "nothing drawn on the main screen")
  }

  /// The viewer ends every frame with one constant sequence (the end of synchronized
  /// output); written alone after a flush, it was sent and then zeroed with the buffer, so
  /// that every later frame ended in NULs and kitty held each one until its synchronized
  /// output timed out (an animation after the viewer had sent a neighbour ahead).
  func testASmallArrayWrittenAloneIsSentAndLeftAsItWas() throws {
    let terminal = try makeTerminal()
    read(until: "\u{1B}[?1049h")
    let frameEnd = Array("\u{1B}[?2026l".utf8)
    for _ in 0..<2 {
      terminal.write(frameEnd)
      terminal.flush()
      XCTAssertEqual(Glibc.write(slave, ">", 1), 1)
      XCTAssertTrue(read(until: ">").hasSuffix("\u{1B}[?2026l>"))
    }
    XCTAssertEqual(frameEnd, Array("\u{1B}[?2026l".utf8), "the caller's bytes were wiped")
  }

  func testASignalInTheMiddleOfAFrameCutsTheRestOff() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    read(until: "\u{1B}[?1049h")
    let frame = [UInt8](repeating: UInt8(ascii: "x"), count: 4 << 20)
    terminal.write(frame)
    // The master side reads while the frame is written, and sends SIGTERM to this thread
    // once part of it has come.
    let writer = pthread_self()
    let master = self.master
    let received = Locked<[UInt8]>([])
    let readerEnded = DispatchSemaphore(value: 0)
    let reader = Thread {
      defer { readerEnded.signal() }
      var signalled = false
      var buffer = [UInt8](repeating: 0, count: 65536)
      while !String(decoding: received.value.suffix(3), as: UTF8.self).hasSuffix("end") {
        let count = Glibc.read(master, &buffer, buffer.count)
        guard count > 0 else { return }
        received.update { $0 += buffer[0..<count] }
        if !signalled && received.value.count > 65536 {
          signalled = true
          pthread_kill(writer, SIGTERM)
        }
      }
    }
    reader.start()
    terminal.flush()
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .quit)
    XCTAssertEqual(Glibc.write(slave, "end", 3), 3)
    XCTAssertEqual(
      readerEnded.wait(timeout: .now() + Self.hangLimit), .success, "the reader never saw the end")
    let output = String(decoding: received.value, as: UTF8.self)
    let leaving = try XCTUnwrap(output.range(of: "\u{1B}[?25h\u{1B}[?1049l"), "never left the screen")
    XCTAssertEqual(output[leaving.upperBound...], "end", "nothing of the frame after leaving")
    XCTAssertLessThan(output.filter { $0 == "x" }.count, frame.count, "the frame was cut short")
    assertSettingsAreTheOriginal()
  }

  func testSizeComesFromTheWindow() throws {
    var window = winsize(ws_row: 40, ws_col: 100, ws_xpixel: 1000, ws_ypixel: 800)
    XCTAssertEqual(ioctl(slave, UInt(TIOCSWINSZ), &window), 0)
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    XCTAssertEqual(terminal.size.columns, 100)
    XCTAssertEqual(terminal.size.rows, 40)
    XCTAssertEqual(terminal.size.cell, PixelSize(width: 10, height: 20))
    window = winsize(ws_row: 30, ws_col: 90, ws_xpixel: 0, ws_ypixel: 0)
    XCTAssertEqual(ioctl(slave, UInt(TIOCSWINSZ), &window), 0)
    XCTAssertEqual(terminal.size.columns, 90)
    XCTAssertNil(terminal.size.cell)
  }

  func testTheCellSizeQueryAndTheKeysTypedMeanwhile() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    read(until: "\u{1B}[?1049h")
    let master = self.master
    let answerer = Thread {
      var received: [UInt8] = []
      while !String(decoding: received, as: UTF8.self).contains("\u{1B}[16t") {
        var byte: UInt8 = 0
        guard Glibc.read(master, &byte, 1) == 1 else { return }
        received.append(byte)
      }
      let answer = Array("n\u{1B}[6;18;9t".utf8)
      _ = Glibc.write(master, answer, answer.count)
    }
    answerer.start()
    XCTAssertEqual(terminal.queryCellSize(timeout: Self.hangLimit), PixelSize(width: 9, height: 18))
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(.character("n")))
  }

  // MARK: Events

  /// What comes after a paste's end in the same input (a clipboard holding a forged
  /// ESC [201~ and then keys) is dropped, and so is input that follows close behind it. A
  /// key read on its own after a pause is typed; keys that come together are not.
  func testPastedInputNeverPassesForTypedKeys() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    // A pause between keys is the terminal's clock moved on, not a sleep.
    var paused = 0.0
    terminal.clock = { FullScreenTerminal.now() + paused }
    type("\u{1B}[200~ab\u{1B}[201~\u{1B}[201~e/tmp/x\rdy")
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(.paste("ab")))
    XCTAssertNil(terminal.nextEvent(timeout: 0))
    // More of the paste, however late it is read: many keys at once.
    type(String(repeating: "\u{E000}", count: 50) + "y")
    XCTAssertNil(terminal.nextEvent(timeout: 0.1))
    // A key typed on its own ends that.
    paused += FullScreenTerminal.typedGap * 2
    type("y")
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(.character("y")))
    XCTAssertTrue(terminal.lastKeyWasTyped)
    paused += FullScreenTerminal.typedGap * 2
    type("dy")
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(.character("d")))
    XCTAssertFalse(terminal.lastKeyWasTyped)
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(.character("y")))
    XCTAssertFalse(terminal.lastKeyWasTyped, "a y that came with a d was not typed on its own")
  }

  func testKeysArriveDecoded() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    type("j\u{1B}[A\r\u{1B}[6~")
    for key in [Key.character("j"), .up, .enter, .pageDown] {
      XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(key))
    }
    // A lone ESC becomes Escape once no more bytes follow.
    type("\u{1B}")
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(.escape))
    // The start of a sequence waits for its end, across reads.
    type("\u{1B}[")
    XCTAssertNil(terminal.nextEvent(timeout: 0))
    type("B")
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(.down))
  }

  func testNothingHappeningTimesOut() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    XCTAssertNil(terminal.nextEvent(timeout: 0))
    XCTAssertNil(terminal.nextEvent(timeout: 0.01))
  }

  func testWakeFromAnotherThread() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    let waker = Thread { FullScreenTerminal.wake() }
    waker.start()
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .wake)
    terminal.wake()
    terminal.wake()
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .wake, "wake-ups coalesce")
    XCTAssertNil(terminal.nextEvent(timeout: 0))
  }

  /// A playing video wakes the loop for every frame: a key typed meanwhile comes first, or
  /// under load `q` waited for the video's end (a new user's tryout; fails before: .wake).
  func testAKeyTypedComesBeforeAWakeUp() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    type("q")
    var waiting = pollfd(fd: slave, events: Int16(POLLIN), revents: 0)
    XCTAssertEqual(poll(&waiting, 1, Int32(Self.hangLimit * 1000)), 1, "the key never reached the terminal")
    terminal.wake()
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .key(.character("q")))
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .wake)
  }

  func testResizeSignal() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    raise(SIGWINCH)
    raise(SIGWINCH)
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .resize)
    XCTAssertNil(terminal.nextEvent(timeout: 0))
  }

  func testContinueReentersTheScreenAndRedraws() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    read(until: "\u{1B}[?1049h")
    raise(SIGCONT)
    read(until: "\u{1B}[?1049h\u{1B}[?25l")
    assertRaw()
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .redraw)
  }

  func testATerminationSignalRestoresAtOnceThenQuits() throws {
    for signal in [SIGTERM, SIGHUP, SIGINT, SIGQUIT] {
      let before = handler(of: signal)
      let terminal = try makeTerminal()
      read(until: "\u{1B}[?1049h")
      // Raised only while the handler is there: the default action would end the tests.
      guard handler(of: signal) != unsafeBitCast(SIG_DFL, to: Int.self) else {
        XCTFail("no handler for signal \(signal)")
        terminal.restore()
        continue
      }
      type("typed ahead")
      raise(signal)
      read(until: "\u{1B}[?25h\u{1B}[?1049l")
      assertSettingsAreTheOriginal()
      XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .quit, "signal \(signal)")
      XCTAssertEqual(terminal.nextEvent(timeout: 0), .quit, "a quit stays")
      // A continue after the quit does not take the terminal again.
      raise(SIGCONT)
      assertSettingsAreTheOriginal()
      terminal.restore()
      assertSettingsAreTheOriginal()
      XCTAssertEqual(handler(of: signal), before)
    }
  }

  func testSuspendRawGivesTheTerminalBackForAPrompt() throws {
    let terminal = try makeTerminal()
    defer { terminal.restore() }
    read(until: "\u{1B}[?1049h")
    let answer = terminal.suspendRaw { () -> Int in
      assertSettingsAreTheOriginal()
      read(until: "\u{1B}[?1049l")
      return 42
    }
    XCTAssertEqual(answer, 42)
    read(until: "\u{1B}[?1049h")
    assertRaw()
    XCTAssertEqual(terminal.nextEvent(timeout: Self.hangLimit), .redraw)
  }
}

/// A value shared between a test and a thread it starts.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Value

  init(_ value: Value) { stored = value }

  var value: Value { lock.withLock { stored } }

  func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
