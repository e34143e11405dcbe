import Foundation
import XCTest

extension ViewerTests {
  /// Kitty, `n` to a neighbour decoded ahead: the neighbour's upload was sent before the
  /// key, and the frame that answers the key only places pictures the terminal holds. The
  /// new photo's original (for zooming) is encoded in the background and sent in a later
  /// frame: Base64 of megabytes of pixels never stands between a key and its frame.
  func testKittyPagingToANeighbourSentAheadUploadsNothingInTheKeysFrame() throws {
    for (seed, name) in [(7, "big-1.jpg"), (8, "big-2.jpg")] {
      try writeJPEG(width: 2400, height: 1800, seed: seed, to: folder + "/" + name)
      XCTAssertEqual(try vault.run(["add", folder + "/" + name]).status, 0)
    }
    let viewer = try KittyScript("view --mode kitty --sort imported 7", vault: vault, in: folder)
    defer { viewer.stop() }
    func isShown(_ number: Int, _ name: String) -> (KittyOutput.Event) -> Bool {
      { event in
        guard case .status(let text) = event else { return false }
        return text.hasPrefix("\(number) / 8  \(name)  2400×1800  ") && !text.contains("loading")
      }
    }
    // Fitted: 4:3, smaller than the decoded original (1200×900), larger than a thumbnail.
    func isFitted(_ event: KittyOutput.Event) -> Bool {
      guard case .upload(let width, let height) = event else { return false }
      return width > 512 && width < 1200 && abs(Double(width) / Double(height) - 4.0 / 3.0) < 0.05
    }
    func count(_ events: ArraySlice<KittyOutput.Event>, _ matches: (KittyOutput.Event) -> Bool) -> Int {
      events.filter(matches).count
    }
    // Photo 7 fitted and its original; photo 8 (next) fitted and photo 6 (500×500) sent ahead.
    viewer.read(until: "photo 7 on screen and its neighbours sent ahead") {
      let events = viewer.screen.events[...]
      return events.contains(where: isShown(7, "big-1.jpg")) && count(events, isFitted) == 2
        && events.contains(.upload(width: 1200, height: 900))
        && events.contains { if case .upload(let width, let height) = $0 { width == height } else { false } }
    }
    let start = viewer.screen.events.count
    viewer.send("n")
    viewer.read(until: "photo 8 on screen, then its original") {
      let after = viewer.screen.events[start...]
      return after.contains(where: isShown(8, "big-2.jpg"))
        && after.contains(.upload(width: 1200, height: 900))
    }
    let events = viewer.screen.events
    let shown = try XCTUnwrap(events[start...].firstIndex(where: isShown(8, "big-2.jpg")))
    let frameStart = try XCTUnwrap(events[start..<shown].lastIndex(of: .frame))
    let frameEnd = events[shown...].firstIndex(of: .frame) ?? events.endIndex
    XCTAssertFalse(
      events[frameStart..<frameEnd].contains { if case .upload = $0 { true } else { false } },
      "\(events[start...])")
    XCTAssertEqual(count(events[start...], isFitted), 0, "\(events[start...])")
    viewer.send("q")
    XCTAssertEqual(viewer.waitForExit(), 0)
  }
}

extension ViewerTests {
  /// Kitty: a photo's pixels (its thumbnail standing in, its original fitted, zoomed or
  /// paged to) are sent before the synchronized frame that places them, never inside it
  /// before its status line. The first photo showed black for a frame or two between its
  /// thumbnail and its original: kitty holds about a megabyte of a synchronized frame.
  func testKittyUploadsNoPhotoInsideTheFrameThatShowsIt() throws {
    for (seed, name) in [(9, "big-1.jpg"), (10, "big-2.jpg")] {
      try writeJPEG(width: 2400, height: 1800, seed: seed, to: folder + "/" + name)
    }
    XCTAssertEqual(try vault.run(["add", folder + "/big-1.jpg", folder + "/big-2.jpg"]).status, 0)
    let viewer = try KittyScript("view --mode kitty --sort imported 7", vault: vault, in: folder)
    defer { viewer.stop() }
    // The status line of photo `number` once its original shows, other than `other`.
    func shown(_ number: Int, other: String? = nil) -> String? {
      for case .status(let text) in viewer.screen.events.reversed()
      where text.hasPrefix("\(number) / 8  ") && !text.contains("loading") && text != other {
        return text
      }
      return nil
    }
    viewer.read(until: "photo 7 on screen") { shown(7) != nil }
    viewer.send("n")
    viewer.read(until: "photo 8 on screen") { shown(8) != nil }
    let fit = try XCTUnwrap(shown(8))
    viewer.send("+")
    viewer.read(until: "photo 8 zoomed in") { shown(8, other: fit) != nil }
    viewer.send("q")
    XCTAssertEqual(viewer.waitForExit(), 0)
    XCTAssertEqual(viewer.screen.uploadsInsideAFrame, [], "\(viewer.screen.events)")
  }
}

/// `vault view ARGUMENTS` under `script`, whose output is every byte the viewer wrote (tmux
/// keeps kitty's commands to itself), read into `KittyOutput` events.
final class KittyScript {
  let screen = ViewerTests.KittyOutput()
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()

  init(_ arguments: String, vault: VaultRunner, in folder: String) throws {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    process.arguments = ["-qfec", "stty cols 100 rows 40; \(VaultRunner.binary) \(arguments)", "/dev/null"]
    process.currentDirectoryURL = URL(fileURLWithPath: folder)
    process.environment = [
      "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-kitty",
      "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
    ]
    process.standardInput = input
    process.standardOutput = output
    try process.run()
  }

  func send(_ keys: String) {
    input.fileHandleForWriting.write(Data(keys.utf8))
  }

  /// Reads until `done` holds; fails if it never does.
  func read(until what: String, file: StaticString = #filePath, line: UInt = #line, _ done: () -> Bool) {
    let deadline = Date().addingTimeInterval(TmuxSession.hangLimit)
    let descriptor = output.fileHandleForReading.fileDescriptor
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while !done(), Date() < deadline {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      let count = Glibc.read(descriptor, &buffer, buffer.count)
      if count <= 0 { break }
      screen.append(buffer[0..<count])
    }
    XCTAssertTrue(done(), "never: \(what); seen \(screen.events)", file: file, line: line)
  }

  /// Reads what is left until the viewer ends (it may still be sending pixels); its status.
  func waitForExit() -> Int32 {
    let descriptor = output.fileHandleForReading.fileDescriptor
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    let deadline = Date().addingTimeInterval(TmuxSession.hangLimit)
    while process.isRunning, Date() < deadline {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      if poll(&poller, 1, 100) > 0, Glibc.read(descriptor, &buffer, buffer.count) <= 0 { break }
    }
    process.waitUntilExit()
    return process.terminationStatus
  }

  func stop() {
    if process.isRunning { process.terminate() }
  }
}

extension ViewerTests {
  /// kitty answers a placement only when it fails: an image it no longer holds (evicted past
  /// its storage quota) is sent again and placed; one it loses again and again is given up
  /// on, and the status line says so.
  func testKittyImagesItLostAreSentAgainThenGivenUpOn() throws {
    let viewer = try KittyScript("view --mode kitty --sort imported 1", vault: vault, in: folder)
    defer { viewer.stop() }
    let events = { viewer.screen.events }
    func uploads() -> Int { events().filter { if case .upload = $0 { true } else { false } }.count }
    func lastPlaced() -> Int? {
      events().last { if case .placement = $0 { true } else { false } }.flatMap {
        if case .placement(let id) = $0 { id } else { nil }
      }
    }
    viewer.read(until: "photo 1 on screen") {
      events().contains {
        if case .status(let text) = $0 {
          text.hasPrefix("1 / 6  photo-1.jpg") && !text.contains("loading")
        } else {
          false
        }
      }
    }
    for _ in 0..<kittyResends {
      let (before, lost) = (uploads(), try XCTUnwrap(lastPlaced()))
      viewer.send("\u{1B}_Gi=\(lost),p=1;ENOENT:Put command refers to non-existent image\u{1B}\\")
      viewer.read(until: "image \(lost) sent again and placed") {
        uploads() > before && lastPlaced() != lost
      }
    }
    viewer.send("\u{1B}_Gi=\(try XCTUnwrap(lastPlaced())),p=1;ENOENT:gone again\u{1B}\\")
    viewer.read(until: "the status line says the picture is not shown") {
      events().contains {
        if case .status(let text) = $0 {
          text.contains("kitty does not show a picture: ENOENT")
        } else {
          false
        }
      }
    }
    viewer.send("q")
    XCTAssertEqual(viewer.waitForExit(), 0)
  }
}

/// `KittyPictureDrawing.resends`, as the viewer's tests see it (the executable's tests do not
/// import VaultTerminal's internals).
let kittyResends = 2

extension ViewerTests {
  /// Keys that arrive together (typed ahead, or a terminal without bracketed paste pasting
  /// a folder's name) are handled together, then drawn once: a frame a key redrew the grid
  /// for every character of a pasted path, a second each in a debug build.
  func testKeysThatArriveTogetherAreDrawnOnce() throws {
    let viewer = try KittyScript("view --mode kitty --sort imported", vault: vault, in: folder)
    defer { viewer.stop() }
    let events = { viewer.screen.events }
    viewer.read(until: "the grid") {
      events().contains {
        if case .status(let text) = $0 { text.hasPrefix("1 / 6  0 selected") } else { false }
      }
    }
    let start = events().count
    viewer.send("lllll")
    viewer.read(until: "the cursor on the last photo") {
      events()[start...].contains {
        if case .status(let text) = $0 { text.hasPrefix("6 / 6") } else { false }
      }
    }
    XCTAssertEqual(events()[start...].filter { $0 == .frame }.count, 1, "\(events()[start...])")
    viewer.send("q")
    XCTAssertEqual(viewer.waitForExit(), 0)
  }
}
