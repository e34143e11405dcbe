import Dispatch
import Foundation
import VaultCore
import VaultTerminal

/// `vault-scale measure BIG EMPTY RUNS`: what `list --count 1` (open), `list --count 50` and
/// `select 5` do in the library, timed in this process on a big space and on an empty one
/// (the same key derivation), alternating, medians of RUNS. No process start, no printing:
/// only the library's cost, so that two builds of it (before and after a change) compare
/// even when the CLI cannot be built in time. `make bench-scale` remains the measure of
/// record.
enum Measure {
  static func run(big: String, empty: String, runs: Int, password: Password) throws {
    var times: [String: [Double]] = [:]
    for run in 0..<runs {
      for (label, body) in [("open", open), ("list", list), ("select", select)] {
        let sides = run % 2 == 0 ? [("big", big), ("empty", empty)] : [("empty", empty), ("big", big)]
        for (side, folder) in sides {
          let start = DispatchTime.now().uptimeNanoseconds
          try body(folder, password)
          times[label + " " + side, default: []].append(
            Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
          if label == "select" { try unselect(folder, password) }
        }
      }
    }
    func median(_ key: String) -> Double { times[key]!.sorted()[runs / 2] }
    for label in ["open", "list", "select"] {
      let (big, empty) = (median(label + " big"), median(label + " empty"))
      let name = label.padding(toLength: 7, withPad: " ", startingAt: 0)
      print("  \(name) \(Int(big - empty)) ms   (big \(Int(big)) ms, empty \(Int(empty)) ms)")
    }
    for (key, values) in times.sorted(by: { $0.key < $1.key }) {
      print("  \(key): \(values.map { Int($0) })")
    }
  }

  /// `vault list --count 1`: unlock to read, the browser, one photo and its shown name.
  static func open(_ folder: String, _ password: Password) throws {
    let space = try Vault.open(at: folder).unlock(password: password, access: .read)
    let browser = space.makeBrowser(perRow: 1, scope: PhotoScope())
    let photos = browser.listed(selectedOnly: false, from: nil, count: 1)
    _ = browser.shownNames(of: photos.map(\.photo))
  }

  /// `vault list --count 50`: the same, fifty photos, and their table.
  static func list(_ folder: String, _ password: Password) throws {
    let space = try Vault.open(at: folder).unlock(password: password, access: .read)
    let browser = space.makeBrowser(perRow: 1, scope: PhotoScope())
    let photos = browser.listed(selectedOnly: false, from: nil, count: 50)
    _ = PhotoListing.table(photos, names: browser.shownNames(of: photos.map(\.photo)), columns: 100)
  }

  /// `vault select 5`, as SelectCommand does it: unlock to write, the selection before,
  /// the photo chosen and selected, the selection after and the count printed. On the
  /// empty space the choice fails after the same open, as the command does.
  static func select(_ folder: String, _ password: Password) throws {
    let space = try Vault.open(at: folder).unlock(password: password, access: .write)
    defer { Space.removeWriterMarks() }
    let browser = space.makeBrowser(perRow: 1, scope: PhotoScope())
    let before = Set(space.entries.lazy.filter(\.selected).map(\.record.id))
    guard let indexes = try? chosen(browser) else { return }
    try browser.setSelected(indexes, true)
    let after = Set(space.entries.lazy.filter(\.selected).map(\.record.id))
    _ = (before, after, browser.selectedPhotos().count)
  }

  /// `vault unselect 5` (not timed: the next run starts from the same space).
  static func unselect(_ folder: String, _ password: Password) throws {
    let space = try Vault.open(at: folder).unlock(password: password, access: .write)
    defer { Space.removeWriterMarks() }
    let browser = space.makeBrowser(perRow: 1, scope: PhotoScope())
    if let indexes = try? chosen(browser) { try browser.setSelected(indexes, false) }
  }

  static func chosen(_ browser: PhotoBrowser) throws -> [Int] {
    try browser.photos(chosenBy: .photos(PhotoSelector.parse(["5"])), action: "selecting").map(\.index)
  }
}
