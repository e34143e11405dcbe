import Foundation
import XCTest

/// `vault list --per-row N` on a real terminal (tmux), and piped.
final class GridDrawingTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var names: [String] = []

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    let photos = try FileManager.default.contentsOfDirectory(atPath: fixturesPath)
      .filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted().prefix(10)
    XCTAssertEqual(try vault.run(["add"] + photos.map { fixturesPath + "/" + $0 }).status, 0)
    let list = try vault.run(["list", "--json"])
    let entries = try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
    names = entries.compactMap { $0["name"] as? String }
    XCTAssertEqual(names.count, 10)
    // Photo 3 is selected; it must not be the flat one whose colour a test looks for.
    XCTAssertNotEqual(names[2], "flat-teal.png")
    XCTAssertEqual(try vault.run(["select", "3"]).status, 0)
  }

  /// Runs `command` in a detached 100×50 tmux pane and returns the screen, with escape
  /// sequences, once it has finished.
  func onTerminal(_ command: String, environment: [String: String] = [:]) throws -> (
    plain: String, escaped: String
  ) {
    var variables = ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color"]
    variables.merge(environment) { $1 }
    let session = try TmuxSession(command, in: folder, environment: variables)
    let screen = try session.waitUntilFinished()
    return (screen, try session.screen(escapes: true))
  }

  func testTheGridShowsNCellsARowWithNumbersNamesAndColours() throws {
    let screen = try onTerminal("\(VaultRunner.binary) list --per-row 4 --count 8")
    let lines = screen.plain.split(separator: "\n").map(String.init)
    // (100 − 3·2 − 2) / 4 = 23 columns a cell.
    let firstLabels =
      " "
      + [1, 2, 3, 4].map { number -> String in
        let label = (number == 3 ? "✔ " : "") + "\(number) " + names[number - 1]
        return label + String(repeating: " ", count: 23 - label.count)
      }.joined(separator: "  ")
    XCTAssertTrue(
      lines.contains { $0.hasPrefix(String(firstLabels.prefix(70))) }, "\(firstLabels)\n\(screen.plain)")
    XCTAssertTrue(
      lines.contains { $0.contains("5 \(names[4])") && $0.contains("8 \(names[7])") }, screen.plain)
    XCTAssertFalse(screen.plain.contains("9 \(names[8])"), "--count 8 stops at photo 8")
    // Four cells a row: four runs of drawn cells separated by gutters on a picture line.
    XCTAssertTrue(screen.escaped.contains("\u{1B}["), "no escape sequences")
    XCTAssertTrue(
      screen.escaped.range(of: "[34]8;(2;[0-9]+;[0-9]+;[0-9]+|5;[0-9]+)", options: .regularExpression) != nil)
    XCTAssertFalse(screen.plain.contains("[x] 3"), "the text layout was printed instead")
  }

  /// Inside tmux without COLORTERM, the grid is drawn in true colour: tmux takes RGB
  /// colours whatever the terminal outside has (256 colours gave thumbnails a colour cast).
  /// TERM is tmux's own, whose terminfo (Debian's) says nothing of RGB.
  func testInsideTmuxWithoutColorTermTheColoursAreTrue() throws {
    let screen = try onTerminal(
      "\(VaultRunner.binary) list --per-row 4 --count 4", environment: ["TERM": "tmux-256color"])
    XCTAssertTrue(
      screen.escaped.range(of: "[34]8;2;[0-9]+;[0-9]+;[0-9]+", options: .regularExpression) != nil,
      "no true colour:\n\(screen.escaped)")
    XCTAssertNil(screen.escaped.range(of: "[34]8;5;[0-9]+", options: .regularExpression), "256 colours")
  }

  /// Asking the terminal what it can do leaves nothing behind in tmux: kitty's query (an
  /// APC string) would become the pane's title there.
  func testTheProbeLeavesTmuxsTitleAlone() throws {
    let variables = ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "tmux-256color"]
    let session = try TmuxSession(
      "\(VaultRunner.binary) list --per-row 4 --count 4", in: folder, environment: variables)
    try session.waitUntilFinished()
    let output = folder + "/title"
    _ = try TmuxSession.runTool(["-L", session.socket, "display", "-p", "#{pane_title}"], output: output)
    let title = try String(contentsOfFile: output, encoding: .utf8)
    XCTAssertFalse(title.contains("Gi="), title)
  }

  /// Inside tmux, kitty's pictures asked for by name are refused, not sent: tmux took their
  /// commands for the pane's title, which then showed Base64 of the photo's pixels.
  func testKittyPicturesAskedForInsideTmuxAreRefused() throws {
    let variables = ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "tmux-256color"]
    let session = try TmuxSession(
      "\(VaultRunner.binary) list --per-row 4 --count 4 --mode kitty; echo \"exit status $?\"", in: folder,
      environment: variables)
    let screen = try session.waitUntilFinished()
    XCTAssertTrue(screen.contains("error: --mode kitty draws nothing inside tmux"), screen)
    XCTAssertTrue(screen.contains("exit status 1"), screen)
    let output = folder + "/title"
    _ = try TmuxSession.runTool(["-L", session.socket, "display", "-p", "#{pane_title}"], output: output)
    let title = try String(contentsOfFile: output, encoding: .utf8)
    XCTAssertFalse(title.contains("Ga=") || title.contains("Gq="), title)
  }

  /// Under each cell's number and name, the day the photo was taken (else imported,
  /// marked *), as the text layout's last line has it, where the cell is wide enough.
  func testEachCellShowsItsDateWhereItFits() throws {
    let day = #"\d{4}-\d{2}-\d{2}\*?"#
    let wide = try vault.run(
      ["list", "--per-row", "4", "--count", "4", "--mode", "symbols"], environment: ["COLUMNS": "100"])
    XCTAssertEqual(wide.status, 0, wide.stderr)
    let lines = wide.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let labels = try XCTUnwrap(lines.firstIndex { $0.contains("1 \(names[0])") }, wide.stdout)
    let dates = lines[labels + 1]
    XCTAssertEqual(
      dates.replacingOccurrences(of: day, with: "D", options: .regularExpression)
        .trimmingCharacters(in: .whitespaces).split(separator: " ", omittingEmptySubsequences: true),
      ["D", "D", "D", "D"], wide.stdout)
    let text = try vault.run(["list", "--per-row", "4", "--count", "4"], environment: ["COLUMNS": "100"])
    for date in dates.split(separator: " ") { XCTAssertTrue(text.stdout.contains(date), text.stdout) }
    // Cells 8 columns wide have no room for a date.
    let narrow = try vault.run(
      ["list", "--per-row", "4", "--count", "4", "--mode", "symbols"], environment: ["COLUMNS": "40"])
    XCTAssertEqual(narrow.status, 0, narrow.stderr)
    XCTAssertNil(narrow.stdout.range(of: day, options: .regularExpression), narrow.stdout)
  }

  func testPipedOrDumbTerminalsGetTheTextLayout() throws {
    _ = try onTerminal("\(VaultRunner.binary) list --per-row 4 | cat > piped.txt")
    let text = try String(contentsOfFile: folder + "/piped.txt", encoding: .utf8)
    XCTAssertFalse(text.contains("\u{1B}"), "escape sequences in piped output")
    XCTAssertTrue(text.contains("[x] 3"), text)
    let dumb = try onTerminal("\(VaultRunner.binary) list --per-row 4", environment: ["TERM": "dumb"])
    XCTAssertTrue(dumb.plain.contains("[x] 3"), dumb.plain)
    XCTAssertFalse(dumb.escaped.contains("8;2;"), "colours with TERM=dumb")
    let noColor = try onTerminal("\(VaultRunner.binary) list --per-row 4", environment: ["NO_COLOR": "1"])
    XCTAssertTrue(noColor.plain.contains("[x] 3"), noColor.plain)
  }

  func testTheThumbnailDrawnIsTheSpacesOwn() throws {
    guard let number = names.firstIndex(of: "flat-teal.png").map({ $0 + 1 }) else {
      return XCTFail("flat-teal.png was not imported")
    }
    let run = try vault.run(
      ["list", "--per-row", "1", "--mode", "symbols", "--from", "\(number)", "--count", "1"],
      environment: ["TERM": "xterm-256color", "COLORTERM": "truecolor"])
    XCTAssertEqual(run.status, 0, run.stderr)
    let colours = matches(of: "[34]8;2;([0-9]+);([0-9]+);([0-9]+)", in: run.stdout).map {
      $0.map { Int($0)! }
    }
    XCTAssertFalse(colours.isEmpty, "no truecolor sequences")
    let teal = colours.filter { abs($0[0] - 0) <= 4 && abs($0[1] - 128) <= 4 && abs($0[2] - 128) <= 4 }
    XCTAssertGreaterThan(teal.count * 2, colours.count, "mostly #008080: \(Set(colours.map { "\($0)" }))")
    XCTAssertTrue(run.stdout.contains("\(number) flat-teal.png"))
    // The grid draws nothing in a JSON listing, and --selected keeps the numbers.
    let selected = try vault.run(["list", "--selected", "--per-row", "2"])
    XCTAssertTrue(selected.stdout.contains("[x] 3"), selected.stdout)
    XCTAssertEqual(selected.stdout.split(separator: "\n").filter { $0.contains("[ ]") }.count, 0)
  }

  private func matches(of pattern: String, in text: String) -> [[String]] {
    let expression = try! NSRegularExpression(pattern: pattern)
    let range = NSRange(text.startIndex..., in: text)
    return expression.matches(in: text, range: range).map { match in
      (1..<match.numberOfRanges).map { String(text[Range(match.range(at: $0), in: text)!]) }
    }
  }
}
