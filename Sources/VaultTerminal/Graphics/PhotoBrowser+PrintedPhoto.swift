import VaultCore

extension PhotoBrowser {
  /// The photo `item` as `vault show` prints it: its original decoded at the size drawn,
  /// turned as its EXIF orientation says, and fitted in `columns` × `rows` cells, as lines
  /// ready to be written. A date taken found in it is noted (`storeFoundDetails` keeps it).
  public func printedPhoto(
    _ item: (index: Int, photo: PhotoModel), graphics: TerminalGraphics, columns: Int, rows: Int
  ) throws -> [String] {
    let record = item.photo.record
    let cell = PixelSize(width: graphics.characterWidth, height: graphics.characterHeight)
    let fitted = Viewport.fittedCells(
      image: PixelSize(width: record.width, height: record.height), columns: columns, rows: rows, cell: cell)
    let decoded = try originalImage(
      at: item.index,
      minimumSize: PixelSize(width: fitted.columns * cell.width, height: fitted.rows * cell.height))
    noteDetails(of: record, in: decoded)
    return graphics.printable(decoded.image, columns: fitted.columns, rows: fitted.rows)
  }

  /// The line under a photo `vault show` prints: number, name (as an export names the
  /// file), pixel size, "live" and its
  /// motion (name, size, duration, codec) for a Live Photo, "video", its duration and codec
  /// for a video, and the date taken when known.
  public func shownLabel(_ item: (index: Int, photo: PhotoModel)) -> String {
    let record = item.photo.record
    let names = shownNames(of: [item.photo])
    var text = "\(item.index + 1) \(names.of(record))  \(record.width)×\(record.height)"
    if let motion = PhotoListing.motionDetails(item.photo, names: names) { text += " live (\(motion))" }
    if record.format.isVideo { text += " video " + PhotoListing.videoDetails(record) }
    if let taken = withFoundDetails(record).taken { text += "  " + taken.shownDate }
    return text
  }
}
