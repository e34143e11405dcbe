import VaultCore

/// Fit, zoom and pan of one photo on a screen area measured in character cells.
///
/// The arithmetic is in screen pixels (cells × the cell's pixel size), not in cells: a
/// cell is about twice as tall as wide, so shapes compared in cells would come out
/// squashed. The view is kept as its centre in image pixels, because that is the point
/// that must stay put when the zoom or the terminal's size changes.
///
/// A photo smaller than the screen is enlarged to fit like any other (aspect-fit), so
/// that a small picture is not a speck in the middle of the terminal; `z` on it goes to
/// the maximum zoom, since its 1:1 is smaller than its fit.
///
/// Sizes below 1 (a terminal reporting 0 rows during a resize, an unknown cell size
/// given as 0×0) count as 1, so that no division is by zero and no placement is empty.
public struct Viewport: Equatable, Sendable {
  /// One `+` or `-`: two steps double or halve the scale.
  public static let zoomStep = 2.0.squareRoot()
  /// A photo whose height/width is more than this times the screen's is read from the
  /// head down (a screenshot of a long page, a panorama on its side).
  public static let tallAspectFactor = 2.5
  /// The most a photo can be zoomed relative to its fit, when that exceeds 1:1.
  public static let maximumZoomOverFit = 4.0
  /// Scales within this ratio of each other count as equal, so that repeated `×√2`
  /// steps land on the fit and the maximum instead of a hair beside them.
  static let tolerance = 1e-9

  /// The photo's size as shown (after EXIF orientation), in its full-resolution pixels.
  public private(set) var image: PixelSize
  /// The cells the photo may use.
  public private(set) var columns: Int
  public private(set) var rows: Int
  /// One cell's size in pixels.
  public private(set) var cell: PixelSize
  /// Screen pixels per image pixel now.
  public private(set) var scale: Double
  /// The view's centre in image pixels.
  private(set) var centreX: Double
  private(set) var centreY: Double

  /// Starts at fit.
  public init(image: PixelSize, columns: Int, rows: Int, cell: PixelSize) {
    self.image = PixelSize(width: max(1, image.width), height: max(1, image.height))
    self.columns = max(1, columns)
    self.rows = max(1, rows)
    self.cell = PixelSize(width: max(1, cell.width), height: max(1, cell.height))
    scale = 1
    centreX = 0
    centreY = 0
    fit()
  }

  private var screenWidth: Double { Double(columns) * Double(cell.width) }
  private var screenHeight: Double { Double(rows) * Double(cell.height) }

  /// Whether the photo is taller than 2.5× the screen's aspect (image h/w > 2.5 × screen
  /// h/w, in pixels) and more than twice as tall as it is wide (a screenshot, a scanned
  /// page); such a photo fits its width rather than its height, since fitted whole it would
  /// be a thin unreadable strip. The second rule is the terminal's: its screen is wide (h/w
  /// 0.5 at 200×50), and by the first alone an ordinary 3:4 portrait would open cropped.
  public var isTall: Bool {
    // Cross-multiplied so that the thresholds themselves are exact (and count as not tall).
    Double(image.height) * screenWidth > Self.tallAspectFactor * screenHeight * Double(image.width)
      && image.height > Self.tallPhotoAspect * image.width
  }

  /// How many times taller than wide a photo must be, at least, to be tall.
  static let tallPhotoAspect = 2

  /// The fit rule: aspect-fit and centred, or for a tall photo, the screen's width.
  public var fitScale: Double {
    let widthScale = screenWidth / Double(image.width)
    return isTall ? widthScale : min(widthScale, screenHeight / Double(image.height))
  }

  /// Zooming out stops at fit: smaller would only add empty margins.
  public var minimumScale: Double { fitScale }

  /// 1:1, or 4× fit when that is more (a small photo still gets a real zoom).
  public var maximumScale: Double { max(1, Self.maximumZoomOverFit * fitScale) }

  /// Whether the scale is above fit; paging with ←/→ and the status line depend on it.
  public var isZoomed: Bool { scale > fitScale * (1 + Self.tolerance) }

  /// Zoom percentage for the status line.
  public var zoomPercent: Int { Int((scale * 100).rounded()) }

  /// The scale a step up, clamped to the maximum, around the current view centre.
  public mutating func zoomIn() {
    zoom(to: scale * Self.zoomStep)
  }

  /// The scale a step down, clamped to fit. Back at fit, the clamping centres every axis
  /// that fits, as `fit()` does; a tall photo keeps its reading position rather than
  /// jumping back to its top (`fit()` and `z` do go to the top).
  public mutating func zoomOut() {
    zoom(to: scale / Self.zoomStep)
  }

  /// The "double tap": at fit, to 1:1 (or to the maximum when 1:1 is not larger than
  /// fit), around the current view centre; zoomed, back to fit.
  public mutating func toggleActualSize() {
    if isZoomed {
      fit()
    } else {
      zoom(to: fitScale < 1 - Self.tolerance ? 1 : maximumScale)
    }
  }

  /// Back to the fit scale and position: centred, or a tall photo at its top.
  public mutating func fit() {
    scale = fitScale
    centreX = Double(image.width) / 2
    centreY = isTall ? screenHeight / scale / 2 : Double(image.height) / 2
    clampCentre()
  }

  /// Pans by `dx`,`dy` steps (−1, 0, 1…); a step is a quarter of the visible extent, and
  /// at least one image pixel, so that each key press moves even when a pixel is larger
  /// than the screen. Clamped so no empty margin shows on a side that has more image; an
  /// axis that fits entirely stays centred, so panning it does nothing.
  public mutating func pan(dx: Int, dy: Int) {
    let visibleWidth = min(Double(image.width), screenWidth / scale)
    let visibleHeight = min(Double(image.height), screenHeight / scale)
    centreX += Double(dx) * max(visibleWidth / 4, 1)
    centreY += Double(dy) * max(visibleHeight / 4, 1)
    clampCentre()
  }

  /// A new screen size. At fit the photo stays at the new fit (a tall one keeps the image
  /// row at the top of the view, the line being read); zoomed, the scale stays the same
  /// multiple of fit (so the photo keeps its size relative to the window) and the view
  /// centre stays, both clamped.
  public mutating func resize(columns: Int, rows: Int, cell: PixelSize) {
    let wasZoomed = isZoomed
    let wasTall = isTall
    let zoomOverFit = scale / fitScale
    let viewTop = centreY - screenHeight / scale / 2
    self.columns = max(1, columns)
    self.rows = max(1, rows)
    self.cell = PixelSize(width: max(1, cell.width), height: max(1, cell.height))
    if wasZoomed {
      zoom(to: zoomOverFit * fitScale)
    } else {
      fit()
      if wasTall && isTall {
        centreY = viewTop + screenHeight / scale / 2
        clampCentre()
      }
    }
  }

  /// What to draw: `source` is the visible part in full-resolution image pixels, drawn
  /// into `columns`×`rows` cells whose top-left cell is (`column`, `row`) inside the area
  /// (0-based).
  public struct Placement: Equatable, Sendable {
    public var source: PixelRect
    public var column: Int
    public var row: Int
    public var columns: Int
    public var rows: Int

    public init(source: PixelRect, column: Int, row: Int, columns: Int, rows: Int) {
      self.source = source
      self.column = column
      self.row = row
      self.columns = columns
      self.rows = rows
    }
  }

  /// The current view as whole cells, because kitty places and chafa draws only whole
  /// cells. The source is always inside the image and at least 1×1; the destination is
  /// inside the area, at least 1×1, and centred on an axis where the image is smaller
  /// than the area. Source and destination keep the aspect within rounding: half a cell
  /// on an axis that fits, half an image pixel on an axis that overflows (more only where
  /// the 1×1 minimum applies, as for a 5000×1 photo, which still gets one row).
  public var placement: Placement {
    let x = Self.axis(
      imageLength: image.width, cells: columns, cellLength: cell.width, scale: scale, centre: centreX)
    let y = Self.axis(
      imageLength: image.height, cells: rows, cellLength: cell.height, scale: scale, centre: centreY)
    return Placement(
      source: PixelRect(x: x.sourceStart, y: y.sourceStart, width: x.sourceLength, height: y.sourceLength),
      column: x.firstCell, row: y.firstCell, columns: x.cellCount, rows: y.cellCount)
  }

  /// `placement.source` in the pixels of the same photo decoded at another size (a DCT
  /// scaled decode, or the thumbnail shown while the original decodes): widened outwards
  /// to whole pixels, inside that image and at least 1×1.
  public func source(in decoded: PixelSize) -> PixelRect {
    let source = placement.source
    let x = Self.scaled(
      start: source.x, length: source.width, from: image.width, to: max(1, decoded.width))
    let y = Self.scaled(
      start: source.y, length: source.height, from: image.height, to: max(1, decoded.height))
    return PixelRect(x: x.start, y: y.start, width: x.length, height: y.length)
  }

  /// The JPEG DCT scale denominator (8, 4, 2 or 1) the current scale needs: the largest
  /// d with 1/d ≥ scale, so that a decode at 1/d has at least one decoded pixel per
  /// screen pixel and zooming in asks for a finer decode.
  public var neededScaleDenominator: Int {
    for denominator in [8, 4, 2] where scale <= (1 / Double(denominator)) * (1 + Self.tolerance) {
      return denominator
    }
    return 1
  }

  private mutating func zoom(to target: Double) {
    let minimum = minimumScale
    let maximum = maximumScale
    if target <= minimum * (1 + Self.tolerance) {
      scale = minimum
    } else if target >= maximum * (1 - Self.tolerance) {
      scale = maximum
    } else {
      scale = target
    }
    clampCentre()
  }

  private mutating func clampCentre() {
    centreX = Self.clamped(centreX, imageLength: Double(image.width), visible: screenWidth / scale)
    centreY = Self.clamped(centreY, imageLength: Double(image.height), visible: screenHeight / scale)
  }

  /// An axis that fits is centred; otherwise the view stays within the image. At fit the
  /// visible length equals the image's only up to rounding, hence the tolerance.
  private static func clamped(_ centre: Double, imageLength: Double, visible: Double) -> Double {
    guard visible < imageLength * (1 - tolerance) else { return imageLength / 2 }
    return min(max(centre, visible / 2), imageLength - visible / 2)
  }

  private static func axis(imageLength: Int, cells: Int, cellLength: Int, scale: Double, centre: Double)
    -> (sourceStart: Int, sourceLength: Int, firstCell: Int, cellCount: Int)
  {
    let screen = Double(cells) * Double(cellLength)
    let shown = Double(imageLength) * scale
    if shown <= screen * (1 + tolerance) {
      let count = min(max(Int((shown / Double(cellLength)).rounded()), 1), cells)
      return (0, imageLength, (cells - count) / 2, count)
    }
    let length = min(max(Int((screen / scale).rounded()), 1), imageLength)
    let start = min(max(Int((centre - Double(length) / 2).rounded()), 0), imageLength - length)
    return (start, length, 0, cells)
  }

  private static func scaled(start: Int, length: Int, from: Int, to: Int) -> (start: Int, length: Int) {
    let first = min(start * to / from, to - 1)
    let end = min(max(((start + length) * to + from - 1) / from, first + 1), to)
    return (first, end - first)
  }

  /// The cells a whole photo takes when fitted into `columns`×`rows` cells, keeping its
  /// aspect (at least 1×1): `vault show`, which prints each photo whole, tall ones too.
  public static func fittedCells(image: PixelSize, columns: Int, rows: Int, cell: PixelSize) -> (
    columns: Int, rows: Int
  ) {
    let width = Double(max(1, columns) * max(1, cell.width))
    let height = Double(max(1, rows) * max(1, cell.height))
    let scale = min(width / Double(max(1, image.width)), height / Double(max(1, image.height)))
    let fittedColumns = Int((Double(image.width) * scale / Double(max(1, cell.width))).rounded())
    let fittedRows = Int((Double(image.height) * scale / Double(max(1, cell.height))).rounded())
    return (min(max(1, columns), max(1, fittedColumns)), min(max(1, rows), max(1, fittedRows)))
  }
}
