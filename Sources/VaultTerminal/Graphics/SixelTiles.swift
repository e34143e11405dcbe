import VaultCore

/// A rectangle of character cells, 0-based from the top-left cell of a picture.
struct CellRect: Equatable {
  var column: Int
  var row: Int
  var columns: Int
  var rows: Int
}

/// Terminals drop a sixel image larger than their maximum (xterm: 1000×1000 pixels by
/// default) without a word: a picture wider or taller is drawn as several images side by
/// side and under each other, each within the maximum, meeting at cell boundaries.
enum SixelTiles {
  /// Sixel images are made of bands 6 pixels tall: a terminal may count an image's last
  /// band whole.
  static let bandHeight = 6

  /// The tiles of a `columns`×`rows` area of `cell`-sized cells, each at most `largest`
  /// pixels, in rows from the top-left; the tiles of a row share out its columns evenly.
  static func tiles(columns: Int, rows: Int, cell: PixelSize, largest: PixelSize) -> [CellRect] {
    guard columns > 0, rows > 0 else { return [] }
    let widest = max(1, largest.width / max(1, cell.width))
    let tallest = max(1, (largest.height - (bandHeight - 1)) / max(1, cell.height))
    let across = spans(columns, longest: widest)
    let down = spans(rows, longest: tallest)
    return down.flatMap { row in
      across.map { column in
        CellRect(column: column.start, row: row.start, columns: column.length, rows: row.length)
      }
    }
  }

  /// The smallest largest image believed of a terminal: one that says less (an answer is anyone's
  /// to send: 1×1 made a grid of two photos 6000 images and 23 MB) is taken to have
  /// xterm's default.
  static let smallestLargest = 256

  static func believable(_ largest: PixelSize) -> PixelSize {
    largest.width < smallestLargest || largest.height < smallestLargest
      ? TerminalGraphics.defaultLargestSixel : largest
  }

  /// `count` cut into the fewest spans of at most `longest`, as equal as can be.
  private static func spans(_ count: Int, longest: Int) -> [(start: Int, length: Int)] {
    let pieces = (count + longest - 1) / longest
    return (0..<pieces).map { piece in
      let start = count * piece / pieces
      return (start, count * (piece + 1) / pieces - start)
    }
  }

  /// The part of `source` (pixels of a picture drawn into `columns`×`rows` cells) that
  /// `tile` shows; tiles next to each other get parts next to each other.
  static func source(of tile: CellRect, in source: PixelRect, columns: Int, rows: Int) -> PixelRect {
    let left = source.x + source.width * tile.column / columns
    let right = source.x + source.width * (tile.column + tile.columns) / columns
    let top = source.y + source.height * tile.row / rows
    let bottom = source.y + source.height * (tile.row + tile.rows) / rows
    return PixelRect(x: left, y: top, width: max(1, right - left), height: max(1, bottom - top))
  }
}
