import Foundation
import VaultCore

/// The photo screen: the picture fitted or zoomed, originals decoded ahead, the info panel.
extension PhotoViewer {
  /// Cells the photo may use: the screen but the status line, and the info panel's columns
  /// when it shows.
  func photoArea(columns: Int, rows: Int) -> (columns: Int, rows: Int, panel: Int) {
    let panel = showsInfo && columns >= Self.infoPanelColumns ? min(36, columns / 3) : 0
    return (max(1, columns - panel), max(1, rows - 1), panel)
  }

  /// The viewport of `record` in `area`: a new one for another photo, resized when the
  /// area or the cell size changed, kept otherwise (with its zoom and pan).
  func fitViewport(to record: PhotoRecord, area: (columns: Int, rows: Int, panel: Int)) -> Viewport? {
    let shown = PixelSize(width: record.width, height: record.height)
    if viewportPhoto != record.id || viewport == nil {
      viewport = Viewport(image: shown, columns: area.columns, rows: area.rows, cell: cell)
      viewportPhoto = record.id
    } else if let current = viewport,
      current.columns != area.columns || current.rows != area.rows
        || current.cell != cell
    {
      viewport?.resize(columns: area.columns, rows: area.rows, cell: cell)
    }
    return viewport
  }

  func photoScreen(columns: Int, rows: Int, keep: inout Set<PictureKey>) {
    guard let photo = browser.photo(at: page.index) else { return }
    let record = photo.record
    let area = photoArea(columns: columns, rows: rows)
    guard let viewport = fitViewport(to: record, area: area) else { return }
    requestOriginals(around: page.index, viewport: viewport)
    let placement = viewport.placement
    animateIfMoving(record)
    if drawPlayingFrame(record, columns: area.columns, rows: area.rows) {
      standIn = nil
      drawnOriginal = record.id
    } else if let failure = preloader.decoded(record.id) == nil ? preloader.failure(record.id) : nil {
      if case VaultError.spaceMoved = failure {
        stoppedBy = failure
      } else if readAgain(afterFailureOf: photo) {
        return
      }
      emit(text("\(failure)", row: area.rows / 2, column: 1))
    } else if let picture = pagePicture(photo, in: viewport) {
      let decoded = preloader.decoded(record.id)
      if let decoded { browser.noteDetails(of: record, in: decoded) }
      emit(
        drawing.draw(
          key: picture.key, source: picture.source, column: placement.column, row: placement.row,
          columns: placement.columns, rows: placement.rows, picture: picture.make))
      if decoded != nil {
        standIn = nil
        drawnOriginal = record.id
      }
    }
    if area.panel > 0 {
      emit(infoPanel(photo, column: area.columns + 1, width: area.panel - 1, rows: area.rows))
    }
  }

  /// The page's photo as the photo screen will draw it (its original, else its thumbnail
  /// once it stands in), sent to kitty before the frame begins: kitty shows a synchronized
  /// frame whole only up to about a megabyte, and one that held a photo's upload showed the
  /// erased screen, black, for a frame or two before the photo was placed.
  func uploadPagePhoto() {
    guard screen == .photo, !showsHelp, !asksAboutSeveralPhotos, let photo = browser.photo(at: page.index),
      playback?.photo != photo.record.id
    else { return }
    let size = terminal.size
    guard
      let viewport = fitViewport(to: photo.record, area: photoArea(columns: size.columns, rows: size.rows))
    else { return }
    if let picture = pagePicture(photo, in: viewport) {
      emit(drawing.upload(key: picture.key, picture: picture.make))
    }
  }

  /// What the photo screen draws of `photo` in `viewport` (a playing frame aside): its
  /// decoded original, else its thumbnail standing in once `waitForOriginal` is over; nil
  /// while it waits, and when its original failed.
  func pagePicture(_ photo: PhotoModel, in viewport: Viewport) -> (
    key: PictureKey, source: PixelRect, make: () -> Picture
  )? {
    let id = photo.record.id
    if let decoded = preloader.decoded(id) { return originalPicture(id, decoded, in: viewport) }
    guard preloader.failure(id) == nil, waitForOriginal.isOver(for: id),
      let image = standInThumbnail(photo, atLeast: viewport.placement)
    else { return nil }
    return (
      .thumbnail(id), viewport.source(in: PixelSize(width: image.width, height: image.height)),
      { .photo(image) }
    )
  }

  /// A decoded original as it shows in `viewport`: fitted (`fittedPicture`), or the part of
  /// the original the zoom shows.
  func originalPicture(_ id: BlobID, _ decoded: DecodedPhoto, in viewport: Viewport) -> (
    key: PictureKey, source: PixelRect, make: () -> Picture
  ) {
    if let fitted = fittedPicture(id, decoded, in: viewport) {
      return (
        fitted.key, PixelRect(x: 0, y: 0, width: fitted.size.width, height: fitted.size.height), fitted.make
      )
    }
    let size = PixelSize(width: decoded.image.width, height: decoded.image.height)
    return (
      .original(id, denominator: decoded.scaleDenominator), viewport.source(in: size),
      { .photo(decoded.image) }
    )
  }

  /// What kitty is sent ahead, and keeps, so that paging to a neighbour or back, and the
  /// first zoom step, cost a placement: the neighbours as they show when fitted (paging
  /// first), and the current photo's whole original when it shows fitted and has stayed on
  /// screen for `waitBeforeZoomAhead`. Only once the current photo's original is on screen. The uploads are made in the background (a
  /// photo's Base64 takes tens of milliseconds: no key waits for it) and written by a later
  /// frame once made; not while a key is waiting: megabytes of pixels would hold up what
  /// the user waits for.
  func sendDecodedAhead(keep: inout Set<PictureKey>) {
    guard drawing is KittyPictureDrawing, let viewport, playback == nil,
      let current = browser.photo(at: page.index), drawnOriginal == current.record.id
    else { return }
    var ahead: [(key: PictureKey, make: @Sendable () -> Picture)] = []
    for position in [page.index + 1, page.index - 1] where position >= 0 && position < count {
      guard let photo = browser.photo(at: position), let decoded = preloader.decoded(photo.record.id)
      else {
        continue
      }
      if let fitted = fittedPicture(photo.record.id, decoded, in: fitViewport(photo, like: viewport)) {
        ahead.append((fitted.key, fitted.make))
      } else {
        ahead.append(
          (.original(photo.record.id, denominator: decoded.scaleDenominator), { .photo(decoded.image) }))
      }
    }
    if let decoded = preloader.decoded(current.record.id),
      fittedPicture(current.record.id, decoded, in: viewport) != nil,
      waitBeforeZoomAhead.isOver(for: current.record.id)
    {
      ahead.append(
        (.original(current.record.id, denominator: decoded.scaleDenominator), { .photo(decoded.image) }))
    }
    for (key, make) in ahead {
      // Kept even when a key waits, so that what kitty holds or what is made is not lost.
      keep.insert(key)
      if !terminal.hasPendingInput { emit(drawing.preload(key: key, picture: make)) }
    }
  }

  /// Kitty, a photo fitted to the screen whole: the decoded original shrunk to the pixels of
  /// the cells it fills, which is all the screen shows of it. A 12-megapixel photo is
  /// decoded at 2000×1500 for a 1600×960 screen; sending what shows is a third of the
  /// bytes, and the first photo is on screen that much sooner. Nil when the photo is zoomed
  /// or shows in part (a tall one), or when shrinking would not save much.
  func fittedPicture(_ id: BlobID, _ decoded: DecodedPhoto, in view: Viewport) -> (
    key: PictureKey, size: PixelSize, make: @Sendable () -> Picture
  )? {
    guard drawing is KittyPictureDrawing, !view.isZoomed else { return nil }
    let image = decoded.image
    let whole = PixelRect(x: 0, y: 0, width: image.width, height: image.height)
    guard view.source(in: PixelSize(width: image.width, height: image.height)) == whole else { return nil }
    let placement = view.placement
    let width = placement.columns * cell.width
    let height = placement.rows * cell.height
    guard width <= image.width, height <= image.height, width * height * 3 <= image.width * image.height * 2
    else { return nil }
    return (
      .fitted(id, denominator: decoded.scaleDenominator, width: width, height: height),
      PixelSize(width: width, height: height),
      { .shrunk(image.aspectFilled(width: width, height: height)) }
    )
  }

  /// The current photo's thumbnail, decoded once (as finely as the cells it fills need)
  /// while it stands in for the original.
  func standInThumbnail(_ photo: PhotoModel, atLeast placement: Viewport.Placement) -> RGBImage? {
    if let standIn, standIn.id == photo.record.id { return standIn.image }
    let size = PixelSize(width: placement.columns * cell.width, height: placement.rows * cell.height)
    guard let image = try? browser.thumbnailImage(at: page.index, minimumSize: size) else { return nil }
    standIn = (photo.record.id, image)
    return image
  }

  /// How `photo` shows at fit in the area `viewport` has: a neighbour's view once paged to.
  func fitViewport(_ photo: PhotoModel, like viewport: Viewport) -> Viewport {
    Viewport(
      image: PixelSize(width: photo.record.width, height: photo.record.height), columns: viewport.columns,
      rows: viewport.rows, cell: cell)
  }

  /// The current photo at the scale the zoom needs, then its neighbours at fit.
  func requestOriginals(around index: Int, viewport: Viewport) {
    func request(_ position: Int, denominatorFor view: Viewport) -> OriginalPreloader.Request? {
      guard position >= 0, position < count, let photo = browser.photo(at: position) else { return nil }
      let record = photo.record
      let minimum = PixelSize(
        width: (record.width + view.neededScaleDenominator - 1) / view.neededScaleDenominator,
        height: (record.height + view.neededScaleDenominator - 1) / view.neededScaleDenominator)
      return OriginalPreloader.Request(record: record, minimumSize: minimum)
    }
    func fitView(_ position: Int) -> Viewport? {
      guard position >= 0, position < count, let photo = browser.photo(at: position) else { return nil }
      return fitViewport(photo, like: viewport)
    }
    var requests: [OriginalPreloader.Request] = []
    guard let current = request(index, denominatorFor: viewport) else { return }
    requests.append(current)
    // Neighbours are decoded once the current photo is on screen (those already decoded are
    // kept): decoded at the same time, they took the cores its shrinking and sending needed.
    let shown = drawnOriginal == current.record.id || preloader.failure(current.record.id) != nil
    for neighbour in [index + 1, index - 1] {
      if let view = fitView(neighbour), let next = request(neighbour, denominatorFor: view),
        shown || preloader.decoded(next.record.id) != nil
      {
        requests.append(next)
      }
    }
    preloader.want(requests)
  }

  func infoPanel(_ photo: PhotoModel, column: Int, width: Int, rows: Int) -> [UInt8] {
    let record = browser.withFoundDetails(photo.record)
    let names = browser.shownNames(of: [photo])
    // The name an export and the mount give the file; the one imported under too when other.
    var lines: [String] = ["name", "  " + names.of(record)]
    if let imported = names.importedName(of: record) { lines += ["  imported as " + imported] }
    lines.append("")
    // A photo imported before vault read dates has its file read once its original decodes.
    let unread = !browser.detailsAreKnown(record) && browser.foundDetails[record.id] == nil
    lines += ["taken", "  " + (record.taken?.shownInFull ?? (unread ? "not read yet" : "unknown")), ""]
    if let camera = PhotoListing.camera(record) { lines += ["camera", "  " + camera, ""] }
    lines += ["file size", "  " + PhotoListing.byteCount(record.bytes), ""]
    if photo.place(remote: browser.dataSource.remoteOriginals()) == .remote {
      lines += ["original", "  offloaded: read from", "  the remote as needed", ""]
    }
    lines += ["pixels", "  \(record.width)×\(record.height)", ""]
    lines += ["format", "  " + record.format.rawValue.uppercased(), ""]
    if record.format.isVideo { lines += ["video", "  " + PhotoListing.videoDetails(record), ""] }
    if let motion = photo.motion {
      lines += ["motion", "  " + names.of(motion), "  " + PhotoListing.byteCount(motion.bytes)]
      lines += ["  " + PhotoListing.videoDetails(motion), ""]
    }
    lines += ["imported", "  " + PhotoListing.date(record.importedAt), ""]
    lines += ["file modified", "  " + PhotoListing.date(record.modifiedAt)]
    if photo.isSelected { lines += ["", "✔ selected"] }
    var bytes: [UInt8] = []
    // The status line stays clear.
    for (row, line) in lines.prefix(rows).enumerated() {
      bytes += text(
        DisplayWidth.truncate(TerminalSafeText.escaped(line), to: width), row: row, column: column)
    }
    return bytes
  }
}
