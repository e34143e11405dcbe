import Foundation
import VaultCore

/// The text forms of `vault album list`: a table, and JSON for scripts.
public enum AlbumListing {
  /// One line an album: name, number of photos, the newest photo's date and name (as
  /// `names` shows it). Names
  /// are shown escaped, and the newest photo's name is cut where the line would pass
  /// `columns`.
  public static func table(_ albums: [AlbumSummary], names: ShownFileNames, columns: Int) -> [String] {
    let rows = albums.map { album -> [String] in
      [
        TerminalSafeText.escaped(album.name), "\(album.count) photo\(album.count == 1 ? "" : "s")",
        album.newestDate.map { "newest " + PhotoListing.day(timestamp($0)) } ?? "",
        album.newest.map { TerminalSafeText.escaped(names.of($0.record)) } ?? "",
      ]
    }
    let widths = (0..<3).map { column in rows.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
    return rows.map { row in
      let count = String(repeating: " ", count: widths[1] - DisplayWidth.of(row[1])) + row[1]
      var line = DisplayWidth.pad(row[0], to: widths[0]) + "  " + count
      if !row[2].isEmpty {
        line += "  " + row[2] + "  "
        line += DisplayWidth.truncate(row[3], to: max(8, columns - 1 - DisplayWidth.of(line)))
      }
      return line
    }
  }

  /// A JSON array of objects: name, count, and newest (id, name as `vault list --json`
  /// gives it, date: ISO 8601, UTC), which is left out for an empty album.
  public static func json(_ albums: [AlbumSummary], names: ShownFileNames) throws -> String {
    struct Newest: Encodable {
      var id: String
      var name: String
      var date: String
    }
    struct Item: Encodable {
      var name: String
      var count: Int
      var newest: Newest?
    }
    let items = albums.map { album in
      Item(
        name: album.name, count: album.count,
        newest: album.newest.map {
          Newest(
            id: $0.record.id.hex, name: names.of($0.record),
            date: PhotoListing.iso8601(timestamp(album.newestDate!)))
        })
    }
    if items.isEmpty { return "[]" }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return TerminalSafeText.json(String(decoding: try encoder.encode(items), as: UTF8.self))
  }

  private static func timestamp(_ nanoseconds: Int64) -> Timestamp {
    let (seconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
    return remainder < 0
      ? Timestamp(seconds: seconds - 1, nanoseconds: Int32(remainder + 1_000_000_000))
      : Timestamp(seconds: seconds, nanoseconds: Int32(remainder))
  }
}
