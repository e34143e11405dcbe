import Foundation
import VaultTerminal
import XCTest

@testable import VaultCore

/// `vault view` on a real terminal (tmux), driven with keys, and `vault show`.
final class ViewerTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  /// The photos' names and sizes (as shown), in import order.
  var photos: [(name: String, width: Int, height: Int)] = []

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    // Made here, at sizes a terminal shows differently: wide, tall, very tall, tiny.
    let sizes = [(640, 480), (480, 640), (300, 1600), (800, 450), (24, 16), (500, 500)]
    var paths: [String] = []
    for (number, size) in sizes.enumerated() {
      let path = folder + "/photo-\(number + 1).jpg"
      try writeJPEG(width: size.0, height: size.1, seed: number, to: path)
      paths.append(path)
      photos.append(("photo-\(number + 1).jpg", size.0, size.1))
    }
    XCTAssertEqual(try vault.run(["add"] + paths).status, 0)
  }

  func writeJPEG(width: Int, height: Int, seed: Int, to path: String) throws {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
      for x in 0..<width {
        let offset = (y * width + x) * 3
        pixels[offset] = UInt8((x * 255) / max(1, width - 1))
        pixels[offset + 1] = UInt8((y * 255) / max(1, height - 1))
        pixels[offset + 2] = UInt8((seed * 40) & 0xFF)
      }
    }
    let jpeg = try JPEGEncoder.encode(RGBImage(width: width, height: height, pixels: pixels), quality: 85)
    XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(jpeg)))
  }

  /// `vault view ARGUMENTS` in a tmux pane, with `stty -a` saved before and after.
  func viewer(_ arguments: String, width: Int = 100, height: Int = 40, environment: [String: String] = [:])
    throws -> TmuxSession
  {
    var variables = [
      "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color",
      "COLORTERM": "truecolor",
    ]
    variables.merge(environment) { $1 }
    return try TmuxSession(
      "stty -a > stty-before.txt; \(VaultRunner.binary) view \(arguments); echo \"exit status $?\"; stty -a > stty-after.txt",
      in: folder, environment: variables, width: width, height: height)
  }

  /// The status line the viewer shows for photo `number` at `zoom` percent, as far as it
  /// is sure (the name, then the size).
  func status(_ number: Int) -> String {
    let photo = photos[number - 1]
    return "\(number) / \(photos.count)  \(photo.name)  \(photo.width)×\(photo.height)  "
  }

  /// The zoom percentage the status line shows for photo `number`, if it shows it.
  func shownZoom(_ number: Int, on screen: String) -> Int? {
    guard let line = screen.split(separator: "\n").first(where: { $0.contains(status(number)) }) else {
      return nil
    }
    let rest = line[line.range(of: status(number))!.upperBound...]
    return Int(rest.prefix { $0.isNumber })
  }

  /// Waits until photo `number` shows a zoom within a rounding of `percent`, and returns it.
  @discardableResult
  func waitForZoom(
    _ number: Int, near percent: Double, in session: TmuxSession, file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> Int {
    let screen = try session.wait(until: "photo \(number) at \(percent)%", file: file, line: line) {
      self.shownZoom(number, on: $0).map { abs(Double($0) - percent) <= 1 } ?? false
    }
    return shownZoom(number, on: screen) ?? 0
  }

  /// Waits until the photo's original is on screen (the status line no longer says loading).
  @discardableResult
  func waitForPhoto(
    _ number: Int, in session: TmuxSession, file: StaticString = #filePath, line: UInt = #line
  )
    throws -> String
  {
    try session.wait(until: "photo \(number) loaded", file: file, line: line) {
      $0.contains(self.status(number)) && !$0.contains("loading")
    }
  }

  func listed() throws -> [[String: Any]] {
    try vault.listJSON()
  }

  func testPagingGoToAndZoomShowInTheStatusLine() throws {
    let session = try viewer("--mode symbols 1")
    var screen = try waitForPhoto(1, in: session)
    let fit = try XCTUnwrap(shownZoom(1, on: screen), screen)
    try session.type("n")
    try waitForPhoto(2, in: session)
    try session.type("p")
    try waitForPhoto(1, in: session)
    try session.type("g5")
    try session.wait(for: "go to photo number")
    try session.send("Enter")
    screen = try waitForPhoto(5, in: session)
    // Photo 5 is 24×16: fit enlarges it, and z goes to the most zoom (1:1 is smaller).
    let tinyFit = try XCTUnwrap(shownZoom(5, on: screen), screen)
    XCTAssertGreaterThan(tinyFit, 100)
    try session.type("z")
    try waitForZoom(5, near: Double(tinyFit) * 4, in: session)
    try session.type("z")
    try waitForZoom(5, near: Double(tinyFit), in: session)
    try session.type("g1")
    try session.send("Enter")
    try waitForPhoto(1, in: session)
    try session.type("+")
    try waitForZoom(1, near: Double(fit) * 2.0.squareRoot(), in: session)
    try session.type("z")
    try waitForZoom(1, near: Double(fit), in: session)
    try session.type("z")
    try waitForZoom(1, near: fit < 100 ? 100 : Double(fit) * 4, in: session)
    try session.type("q")
    screen = try session.waitUntilFinished()
    XCTAssertTrue(screen.contains("exit status 0"), screen)
  }

  func testTheTerminalIsAsItWasAfterQuitting() throws {
    let session = try viewer("--mode symbols")
    try session.wait(for: "Enter: open")
    try session.send("Right")
    try session.send("Enter")
    try waitForPhoto(2, in: session)
    try session.type("q")
    let screen = try session.waitUntilFinished()
    XCTAssertTrue(screen.contains("exit status 0"), screen)
    XCTAssertFalse(screen.contains(status(2)), "the alternate screen is gone:\n\(screen)")
    let before = try String(contentsOfFile: folder + "/stty-before.txt", encoding: .utf8)
    try assertSameTerminalSettings("stty-after.txt", as: "stty-before.txt", in: folder)
    XCTAssertTrue(before.contains(" echo ") && before.contains(" icanon "), before)
  }

  /// A wrong password ends the viewer with the terminal as it was, and no answer of the
  /// terminal's printed as if typed.
  func testAWrongPasswordLeavesTheTerminalAsItWas() throws {
    let session = try viewer("--mode symbols", environment: ["VAULT_PASSWORD": "wrong horse"])
    let screen = try session.waitUntilFinished()
    XCTAssertTrue(screen.contains("exit status 3"), screen)
    XCTAssertFalse(screen.contains("[?"), "a terminal answer was printed:\n\(screen)")
    try assertSameTerminalSettings("stty-after.txt", as: "stty-before.txt", in: folder)
  }

  func testSelectionToggledInTheViewerIsSaved() throws {
    let session = try viewer("--mode symbols 2")
    try waitForPhoto(2, in: session)
    try session.type("s")
    try session.wait(until: "photo 2 selected") { $0.contains(self.status(2)) && $0.contains("%  ✔") }
    try session.type("q")
    try session.waitUntilFinished()
    XCTAssertEqual(try listed().map { $0["selected"] as? Bool }, [false, true, false, false, false, false])

    // In the grid, space toggles the photo under the cursor.
    let grid = try viewer("--mode symbols")
    try grid.wait(for: "Enter: open")
    try grid.send("Right")
    try grid.type(" ")
    try grid.wait(for: "0 selected")
    try grid.send("Right")
    try grid.type(" ")
    try grid.wait(for: "1 selected")
    try grid.type("q")
    try grid.waitUntilFinished()
    XCTAssertEqual(try listed().map { $0["selected"] as? Bool }, [false, false, true, false, false, false])
  }

  /// In the grid, `a` puts the selected photos in an album typed on the status line (made
  /// if need be); with nothing selected, the photo under the cursor. With --album, the grid
  /// shows only that album's photos, numbered within it.
  func testAInTheGridPutsTheSelectionInAnAlbum() throws {
    let grid = try viewer("--mode symbols")
    try grid.wait(for: "Enter: open")
    for _ in 0..<2 {
      try grid.send("Right")
      try grid.type(" ")
    }
    try grid.wait(for: "2 selected")
    try grid.type("a")
    try grid.wait(for: "add 2 selected photos to album")
    try grid.type("Trip")
    try grid.send("Enter")
    try grid.wait(for: "made album 'Trip'; added 2 photos to 'Trip'")
    try grid.type("aTrip")
    try grid.send("Enter")
    try grid.wait(for: "added 0 photos to 'Trip' (2 in it already)")
    // A name no album can have is refused, and nothing is written.
    try grid.type("a a/b")
    try grid.send("Enter")
    try grid.wait(for: "error: album name ' a/b' is not usable")
    try grid.type("q")
    try grid.waitUntilFinished()
    XCTAssertEqual(
      try listed().map { $0["albums"] as? [String] }, [[], ["Trip"], ["Trip"], [], [], []])

    XCTAssertEqual(try vault.run(["select", "--none"]).status, 0)
    let album = try viewer("--mode symbols --album Trip")
    try album.wait(for: "1 / 2  0 selected")
    try album.send("Right")
    try album.wait(for: "2 / 2  0 selected")
    try album.type("a")
    try album.wait(for: "add this photo to album")
    try album.type("Best")
    try album.send("Enter")
    try album.wait(for: "made album 'Best'; added 1 photo to 'Best'")
    try album.type("q")
    try album.waitUntilFinished()
    XCTAssertEqual(
      try listed().map { $0["albums"] as? [String] }, [[], ["Trip"], ["Best", "Trip"], [], [], []])
  }

  func testDeleteAsksThenDeletesAndMovesToTheNextPhoto() throws {
    let session = try viewer("--mode symbols 3")
    try waitForPhoto(3, in: session)
    try session.type("d")
    try session.wait(for: "Move 'photo-3.jpg' to Recently Deleted? [y/N]")
    try session.type("n")
    try session.wait(for: "nothing deleted")
    try session.type("d")
    try session.wait(for: "Move 'photo-3.jpg' to Recently Deleted?")
    try session.sendOnItsOwn("y")
    // The photo that moved into its place: photo 4, now number 3 of 5.
    try session.wait(for: "3 / 5  photo-4.jpg  800×450")
    try session.wait(for: "— moved 'photo-3.jpg' to Recently Deleted; 5 left")
    try session.type("q")
    try session.waitUntilFinished()
    XCTAssertEqual(
      try listed().compactMap { $0["name"] as? String },
      ["photo-1.jpg", "photo-2.jpg", "photo-4.jpg", "photo-5.jpg", "photo-6.jpg"])
    XCTAssertEqual(try vault.run(["verify"]).status, 0)
  }

  /// A password changed by another command while the viewer is open renames the space's
  /// folder. The viewer's next read or change then ends it with the moved message, on the
  /// normal screen and with status 1, not with thumbnails called damaged or a selection
  /// that silently does nothing.
  func testAPasswordChangedElsewhereEndsTheViewer() throws {
    let newPassword = folder + "/new-password"
    let oldPassword = folder + "/old-password"
    try "battery staple\n".write(toFile: newPassword, atomically: true, encoding: .utf8)
    try "correct horse\n".write(toFile: oldPassword, atomically: true, encoding: .utf8)

    // A change: space selects the photo under the grid's cursor.
    let grid = try viewer("--mode symbols")
    try grid.wait(for: "Enter: open")
    XCTAssertEqual(try vault.run(["passwd", "--new-password-file", newPassword]).status, 0)
    try grid.type(" ")
    var screen = try grid.waitUntilFinished()
    XCTAssertTrue(screen.contains("error: the space was moved or removed"), screen)
    XCTAssertTrue(screen.contains("exit status 1"), screen)
    XCTAssertFalse(screen.contains("damaged"), screen)
    try assertSameTerminalSettings("stty-after.txt", as: "stty-before.txt", in: folder)

    // A read: paging on needs originals the viewer has not decrypted yet.
    let pager = try viewer("--mode symbols 1", environment: ["VAULT_PASSWORD": "battery staple"])
    try waitForPhoto(1, in: pager)
    XCTAssertEqual(
      try vault.run(["passwd", "--new-password-file", oldPassword], password: "battery staple").status, 0)
    for _ in 0..<3 { try pager.type("n") }
    screen = try pager.waitUntilFinished()
    XCTAssertTrue(screen.contains("error: the space was moved or removed"), screen)
    XCTAssertTrue(screen.contains("exit status 1"), screen)
    XCTAssertFalse(screen.contains("damaged"), screen)

    // Nothing was changed by either viewer, and the space opens with the password it has now.
    XCTAssertEqual(try listed().map { $0["selected"] as? Bool }, [false, false, false, false, false, false])
    XCTAssertEqual(try vault.run(["verify"]).status, 0)
  }

  /// Kitty, a photo fitted to the screen: it is sent at the size its cells show (fewer
  /// bytes than the decoded original), and the original goes after the status line, so
  /// that the first zoom step sends no pixels. tmux keeps kitty's commands to itself: the
  /// viewer runs under `script`, whose output is every byte it wrote. `script` answers no
  /// query, so cells have the viewer's default size; a 2400×1800 photo decodes at 1/2
  /// (1200×900) to fill 100 columns of them.
  func testKittySendsAFittedPhotoAtTheSizeItShowsThenTheOriginalForZooming() throws {
    let photo = folder + "/big.jpg"
    try writeJPEG(width: 2400, height: 1800, seed: 7, to: photo)
    XCTAssertEqual(try vault.run(["add", photo]).status, 0)
    // Read to the end, also after q: what is sent ahead may follow the last frame read, and
    // a viewer whose output is not read waits in its write forever.
    let viewer = try KittyScript("view --mode kitty --sort imported 7", vault: vault, in: folder)
    defer { viewer.stop() }
    let screen = viewer.screen
    func read(until what: String, _ done: () -> Bool) { viewer.read(until: what, done) }
    let shown = "7 / 7  big.jpg  2400×1800  "
    func isShown(_ event: KittyOutput.Event) -> Bool {
      guard case .status(let text) = event else { return false }
      return text.hasPrefix(shown) && !text.contains("loading")
    }
    read(until: "photo 7 on screen, then its original sent") {
      screen.events.contains(where: isShown) && screen.events.contains(.upload(width: 1200, height: 900))
    }
    let status = try XCTUnwrap(screen.events.firstIndex(where: isShown))
    // Before the status line: the thumbnail standing in (512 wide), then the photo as it
    // shows, 4:3 and smaller than the decoded original. After it: the decoded original.
    let before = screen.events[..<status].compactMap { event -> (Int, Int)? in
      guard case .upload(let width, let height) = event else { return nil }
      return (width, height)
    }
    let fitted = before.filter {
      $0.0 > 512 && $0.0 < 1200 && abs(Double($0.0) / Double($0.1) - 4.0 / 3.0) < 0.05
    }
    XCTAssertEqual(fitted.count, 1, "\(before)")
    XCTAssertFalse(before.contains { $0 == (1200, 900) }, "\(before)")
    XCTAssertTrue(screen.events[status...].contains(.upload(width: 1200, height: 900)))

    // A zoom step places the original kitty holds: its frame sends no pixels before the
    // zoomed photo's status line (a neighbour decoded meanwhile may follow it).
    guard case .status(let fit) = screen.events[status] else { return XCTFail() }
    let zoomStart = screen.events.count
    viewer.send("+")
    func isZoomed(_ event: KittyOutput.Event) -> Bool {
      guard case .status(let text) = event else { return false }
      return text.hasPrefix(shown) && text != fit
    }
    read(until: "zoomed in") { screen.events[zoomStart...].contains(where: isZoomed) }
    let zoomed = try XCTUnwrap(screen.events[zoomStart...].firstIndex(where: isZoomed))
    let frame = try XCTUnwrap(screen.events[..<zoomed].lastIndex(of: .frame))
    XCTAssertFalse(
      screen.events[frame..<zoomed].contains {
        if case .upload = $0 { return true }
        return false
      }, "\(screen.events[zoomStart...])")
    viewer.send("q")
    XCTAssertEqual(viewer.waitForExit(), 0)
  }

  /// What the viewer wrote, as the test needs it: frames, kitty uploads (their pixel size)
  /// and status lines (reverse video), in order, scanned as the bytes come (a photo's upload is
  /// megabytes: each byte is looked at once).
  final class KittyOutput {
    enum Event: Equatable {
      /// A frame starts (the screen is erased).
      case frame
      case upload(width: Int, height: Int)
      /// A picture no longer wanted replaced by one pixel (`KittyGraphics.blank`): no photo's
      /// pixels.
      case blank
      /// A placement of image `id`.
      case placement(id: Int)
      case status(String)
    }
    private(set) var events: [Event] = []
    /// Photos' uploads written inside a synchronized frame (DEC mode 2026) before its status
    /// line: kitty holds about a megabyte of a synchronized frame, and showed the erased
    /// screen, black, while such an upload came.
    private(set) var uploadsInsideAFrame: [Event] = []
    private var synchronized = false
    private var statusInThisFrame = false
    private var pending: [UInt8] = []

    func append(_ bytes: ArraySlice<UInt8>) {
      pending += bytes
      var index = 0
      while index < pending.count {
        guard pending[index] == 0x1B else {
          index += 1
          continue
        }
        // A command that may be cut off at the end waits for more bytes.
        guard let end = pending[(index + 1)...].firstIndex(where: { $0 == 0x1B || $0 == UInt8(ascii: ";") })
        else { break }
        let command = String(decoding: pending[index..<end], as: UTF8.self)
        if command.hasPrefix("\u{1B}_Ga=t,") {
          var fields: [String: Int] = [:]
          for field in command.dropFirst(3).split(separator: ",") {
            let parts = field.split(separator: "=")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
          }
          let (width, height) = (fields["s"] ?? 0, fields["v"] ?? 0)
          events.append(width == 1 && height == 1 ? .blank : .upload(width: width, height: height))
          if synchronized, !statusInThisFrame, width > 1 { uploadsInsideAFrame.append(events.last!) }
        } else if command == "\u{1B}[?2026h" {
          (synchronized, statusInThisFrame) = (true, false)
        } else if command == "\u{1B}[?2026l" {
          synchronized = false
        } else if command.hasPrefix("\u{1B}_Ga=p,i=") {
          let id = command.dropFirst(9).prefix { $0.isNumber }
          events.append(.placement(id: Int(id) ?? 0))
        } else if command == "\u{1B}[J" {
          events.append(.frame)
        } else if command.hasPrefix("\u{1B}[7m") {
          guard pending[end] == 0x1B else {
            index = end + 1
            continue
          }
          events.append(.status(String(command.dropFirst(4)).trimmingCharacters(in: .whitespaces)))
          statusInThisFrame = true
        }
        index = end
      }
      // Kept from the command cut off at the end, if one is.
      pending.removeFirst(min(index, pending.count))
    }
  }

  /// Another command changes the space while the viewer is open. A photo it added that
  /// sorts first does not move the cursor off the photo the user sees: the cursor follows
  /// that photo by id, so the next key acts on it. A photo it deleted is said to be
  /// deleted, not called damaged, and the page shows the photo that took its number.
  func testTheViewerStaysOnItsPhotoWhenAnotherCommandChangesTheSpace() throws {
    let grid = try viewer("--mode symbols")
    try grid.wait(for: "1 / 6  0 selected")
    // Dated 2024: by date taken, it comes before the others (imported today, undated).
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/taken-offset.jpg"]).status, 0)
    try grid.type(" ")
    try grid.wait(for: "2 / 7  1 selected")
    try grid.type(" ")
    try grid.wait(for: "2 / 7  0 selected")
    try grid.type("q")
    try grid.waitUntilFinished()
    XCTAssertEqual(try listed().compactMap { $0["selected"] as? Bool }.filter { $0 }, [])

    let pager = try viewer("--mode symbols --sort imported 1")
    try pager.wait(until: "photo 1 loaded") { $0.contains("1 / 7  photo-1.jpg") && !$0.contains("loading") }
    // Deleted for good: a photo moved to Recently Deleted can still be read, and the viewer
    // learns of changes by a read that fails.
    XCTAssertEqual(try vault.run(["delete", "--now", "--yes", "--sort", "imported", "4"]).status, 0)
    for _ in 0..<3 { try pager.type("n") }
    let screen = try pager.wait(for: "'photo-4.jpg' was deleted by another command")
    XCTAssertFalse(screen.contains("damaged"), screen)
    try pager.wait(for: "4 / 6  photo-5.jpg")
    try pager.type("q")
    try pager.waitUntilFinished()
  }

  /// `e` writes the photo's original, bit for bit, to the folder typed at the prompt.
  func testExportWritesTheOriginalToTheTypedFolder() throws {
    // Wide enough for the status line to hold the whole path.
    let session = try viewer("--mode symbols --sort imported 2", width: 250)
    try waitForPhoto(2, in: session)
    try session.type("e")
    try session.wait(for: "export to folder")
    try session.type(folder + "/out")
    try session.sendOnItsOwn("Enter")
    try session.wait(for: "exported " + folder + "/out/photo-2.jpg")
    try session.type("q")
    try session.waitUntilFinished()
    XCTAssertEqual(try fileBytes(folder + "/out/photo-2.jpg"), try fileBytes(folder + "/photo-2.jpg"))
  }

  /// An Enter that comes with the folder's name (a paste that ends in a new line, on a
  /// terminal without bracketed paste) exports nothing: it says to press Enter, and one
  /// pressed on its own then exports.
  func testAnEnterThatCameWithTheFolderNameAsksForAnother() throws {
    let session = try viewer("--mode symbols --sort imported 2", width: 250)
    try waitForPhoto(2, in: session)
    try session.type("e")
    try session.wait(for: "export to folder")
    // One write: the name and its Enter are read together.
    try session.type(folder + "/out\r")
    try session.wait(for: "out  — press Enter to confirm")
    XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/out"))
    try session.sendOnItsOwn("Enter")
    try session.wait(for: "exported " + folder + "/out/photo-2.jpg")
    try session.type("q")
    try session.waitUntilFinished()
    XCTAssertEqual(try fileBytes(folder + "/out/photo-2.jpg"), try fileBytes(folder + "/photo-2.jpg"))
  }

  /// Pasted text is never taken for keys: "study" would select, delete and confirm.
  func testPastedTextDoesNotActAsKeys() throws {
    let session = try viewer("--mode symbols 1")
    try waitForPhoto(1, in: session)
    _ = try TmuxSession.runTool(["-L", session.socket, "set-buffer", "study"], output: "/dev/null")
    _ = try TmuxSession.runTool(["-L", session.socket, "paste-buffer", "-p"], output: "/dev/null")
    // A key read together with the paste (the viewer was drawing when both came) is taken
    // for the rest of it and dropped, by design: n is typed again until one is read on its
    // own, each time only once the last had time to show.
    var shown = false
    for _ in 0..<10 where !shown {
      try session.sendOnItsOwn("n")
      let deadline = Date().addingTimeInterval(5)
      while !shown, Date() < deadline {
        shown = try session.screen().contains(status(2))
        usleep(50_000)
      }
    }
    try waitForPhoto(2, in: session)
    try session.type("q")
    try session.waitUntilFinished()
    XCTAssertEqual(try listed().count, 6)
    XCTAssertEqual(
      try listed().compactMap { $0["selected"] as? Bool }, [false, false, false, false, false, false])
  }

  func testCtrlZThenFgRedraws() throws {
    var variables = [
      "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color",
      "PS1": "shell$ ",
    ]
    variables["COLORTERM"] = "truecolor"
    let session = try TmuxSession("bash --norc --noprofile -i", in: folder, environment: variables)
    try session.wait(for: "shell$")
    try session.type("stty -a > stty-before.txt; \(VaultRunner.binary) view --mode symbols 1")
    try session.send("Enter")
    try waitForPhoto(1, in: session)
    try session.send("C-z")
    var screen = try session.wait(for: "Stopped")
    XCTAssertFalse(screen.contains(status(1)), "the shell's screen is back:\n\(screen)")
    try session.type("stty -a > stty-stopped.txt; clear; fg")
    try session.send("Enter")
    screen = try waitForPhoto(1, in: session)
    try session.type("n")
    try waitForPhoto(2, in: session)
    try session.type("q")
    // Typed only once the shell prompts again: until the viewer has exited, what is typed is
    // its input, and leaving drops it (TCSAFLUSH) after the screen has already changed back.
    try session.wait(until: "the shell prompts after the viewer") { screen in
      !screen.contains(self.status(2))
        && screen.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?
          .hasPrefix("shell$") == true
        && screen.contains("symbols 1\n")
    }
    // Quoted, so that the typed line does not already show what the wait looks for.
    try session.type("stty -a > stty-after.txt; echo 'done-'viewing")
    try session.send("Enter")
    screen = try session.wait(for: "done-viewing\n")
    try assertSameTerminalSettings("stty-stopped.txt", as: "stty-before.txt", in: folder)
    try assertSameTerminalSettings("stty-after.txt", as: "stty-before.txt", in: folder)
  }

  func testSIGTERMRestoresTheTerminal() throws {
    let session = try viewer("--mode symbols 1")
    try waitForPhoto(1, in: session)
    let pids = processIDs(runningView: vault.vault)
    XCTAssertEqual(pids.count, 1)
    for pid in pids { kill(pid, SIGTERM) }
    let screen = try session.waitUntilFinished()
    XCTAssertFalse(screen.contains(status(1)), screen)
    try assertSameTerminalSettings("stty-after.txt", as: "stty-before.txt", in: folder)
  }

  func testANarrowAndAWideTerminal() throws {
    let narrow = try viewer("--mode symbols --per-row 2", width: 30, height: 20)
    var screen = try narrow.wait(for: "1 / 6")
    XCTAssertTrue(screen.split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 30 }, screen)
    try narrow.send("Enter")
    screen = try narrow.wait(until: "photo 1 loaded") {
      // The name is cut to keep the size and zoom on a 30-column line.
      $0.contains("1 / 6  photo-1") && $0.contains("%") && !$0.contains("loading")
    }
    try narrow.type("q")
    try narrow.waitUntilFinished()

    let wide = try viewer("--mode symbols --per-row 6", width: 220, height: 60)
    screen = try wide.wait(for: "Enter: open")
    for photo in photos {
      XCTAssertTrue(screen.contains(photo.name), "\(photo.name) in the grid:\n\(screen)")
    }
    try wide.type("q")
    XCTAssertTrue(try wide.waitUntilFinished().contains("exit status 0"))
  }

  /// An empty space's screen says so and gives the hint the CLI words (VaultTerminal names
  /// no command itself); `q` still leaves.
  func testAnEmptySpaceSaysHowToAddPhotos() throws {
    let empty = folder + "/empty"
    try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
    let emptyVault = try VaultRunner.initialized(in: empty)
    let session = try viewer("--mode symbols", environment: ["VAULT_DIR": emptyVault.vault])
    try session.wait(for: "no photos in this space; add some with 'vault add PATH'")
    try session.type("q")
    XCTAssertTrue(try session.waitUntilFinished().contains("exit status 0"))
  }

  func testViewNeedsATerminalAndSaysWhatElseToUse() throws {
    let run = try vault.run(["view"])
    XCTAssertNotEqual(run.status, 0)
    XCTAssertTrue(run.stderr.contains("needs a terminal"), run.stderr)
    XCTAssertTrue(run.stderr.contains("vault show"), run.stderr)
    XCTAssertEqual(run.stderr.split(separator: "\n").count, 1, run.stderr)
  }

  /// Nothing decrypted reaches a file: the viewer, in symbols and in kitty mode, drawing the
  /// grid, selecting a photo (an encrypted journal write, the only file it may write, in
  /// the vault), then paging through every photo and zooming, opens no other file to
  /// write (strace sees every open), makes no memory file, and works with a TMPDIR it
  /// cannot write to.
  func testNothingDecryptedIsWrittenToAFile() throws {
    let strace = "/usr/bin/strace"
    try requireTool(strace)
    let readOnly = folder + "/read-only-tmp"
    try FileManager.default.createDirectory(atPath: readOnly, withIntermediateDirectories: false)
    chmod(readOnly, 0o500)
    for (round, mode) in ["symbols", "kitty"].enumerated() {
      let trace = folder + "/trace-\(mode).txt"
      let session = try TmuxSession(
        "\(strace) -f -qq -e trace=open,openat,openat2,creat,memfd_create,mknodat,link,linkat,rename,renameat,renameat2 -o \(trace) \(VaultRunner.binary) view --mode \(mode)",
        in: folder,
        // TMUX emptied: vault refuses kitty's pictures inside tmux, and what is looked at
        // here is the files it opens, not the screen.
        environment: [
          "VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color",
          "TMPDIR": readOnly, "TMUX": "",
        ], width: 100, height: 40)
      try session.wait(for: "Enter: open")
      try session.type(" ")
      try session.wait(for: "\(1 - round) selected")
      try session.send("Enter")
      for number in 1...photos.count {
        let fit = shownZoom(number, on: try waitForPhoto(number, in: session)) ?? 0
        try session.type("+")
        try waitForZoom(number, near: Double(fit) * 2.0.squareRoot(), in: session)
        try session.type("n")
      }
      try session.type("q")
      try session.waitUntilFinished()
      let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
      XCTAssertTrue(lines.contains { $0.contains("Photo/") }, "the trace saw the originals being read")
      let writes = lines.filter { line in
        (line.contains("O_WRONLY") || line.contains("O_RDWR") || line.contains("O_CREAT")
          || line.contains("memfd_create(") || line.contains("creat(") || line.contains("link")
          || line.contains("rename"))
          && !line.contains("\"/dev/tty\"") && !line.contains("\"/dev/pts/")
          && !line.contains("\"/dev/null\"")
          && !line.contains("= -1 ")
          // The decoder helper's pixels come back in anonymous shared memory (docs/DECODER.md):
          // a sealed memfd that only vault and its helper hold, in no file system.
          && !line.contains("memfd_create(\"vault-picture\"")
      }
      let outsideTheVault = writes.filter { !$0.contains("\"" + vault.vault + "/") }
      XCTAssertEqual(outsideTheVault, [], "files opened to write while viewing in \(mode) mode")
      XCTAssertTrue(writes.contains { $0.contains("/Journal/") }, "the selection was written to the journal")
    }
  }

  func testShowPrintsEachPhotoThenItsLabel() throws {
    let text = try vault.run(["show", "1", "3-4"])
    XCTAssertEqual(text.status, 0, text.stderr)
    XCTAssertEqual(
      text.stdout,
      ["1 photo-1.jpg  640×480", "3 photo-3.jpg  300×1600", "4 photo-4.jpg  800×450", ""].joined(
        separator: "\n"))
    let drawn = try vault.run(["show", "--mode", "symbols", "--width", "40", "--height", "10", "1"])
    XCTAssertEqual(drawn.status, 0, drawn.stderr)
    let lines = drawn.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    // 640×480 in 40×10 cells of 8×16 pixels: 320×160 pixels at most, so 10 rows of 26–27.
    XCTAssertEqual(lines.count, 12, drawn.stdout)
    XCTAssertEqual(lines[10], "1 photo-1.jpg  640×480")
    let missing = try vault.run(["show", "9"])
    XCTAssertNotEqual(missing.status, 0)
    XCTAssertTrue(missing.stderr.contains("9"), missing.stderr)
  }

  /// An offloaded photo whose copy cannot be read: the viewer shows the error for it, and
  /// its status line only its number and name (not a size and zoom of nothing shown).
  func testAnUnreadableOffloadedPhotoShowsNoSizeOrZoom() throws {
    try requireRclone()
    let remote = folder + "/remote"
    let environment = ["RCLONE_CONFIG": "/nonexistent"]
    XCTAssertEqual(try vault.run(["offload", "1", "--to", remote], environment: environment).status, 0)
    try FileManager.default.removeItem(atPath: remote)
    let session = try viewer("--mode symbols 1", environment: environment)
    let screen = try session.wait(for: "not found")
    let statusLine = try XCTUnwrap(
      screen.split(separator: "\n").last { $0.contains("1 / 6  photo-1.jpg") }, screen)
    XCTAssertFalse(statusLine.contains("640×480"), String(statusLine))
    XCTAssertFalse(statusLine.contains("%"), String(statusLine))
    try session.type("q")
    XCTAssertTrue(try session.waitUntilFinished().contains("exit status 0"))
  }
}

/// The processes running `vault view` (found by their command line and environment).
func processIDs(runningView vaultFolder: String) -> [pid_t] {
  let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
  return entries.compactMap { pid_t($0) }.filter { pid in
    guard let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline")),
      let environment = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ"))
    else { return false }
    let arguments = command.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    let variables = environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    return arguments.first == VaultRunner.binary && arguments.dropFirst().first == "view"
      && variables.contains("VAULT_DIR=" + vaultFolder)
  }
}
