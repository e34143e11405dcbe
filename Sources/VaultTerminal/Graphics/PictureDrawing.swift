import CChafa
import Foundation
import VaultCore

/// Names a picture the viewer draws, so that kitty is sent its pixels only once.
enum PictureKey: Hashable {
  /// A photo's original decoded at 1/denominator.
  case original(BlobID, denominator: Int)
  /// That original shrunk to the pixels of the cells it fills when fitted to the screen
  /// (kitty): what a fitted photo shows, in a fraction of the bytes.
  case fitted(BlobID, denominator: Int, width: Int, height: Int)
  /// A photo's thumbnail, shown while its original decodes.
  case thumbnail(BlobID)
  /// A frame of a video or an animation playing, at its time and the size it was scaled to.
  case frame(BlobID, microseconds: Int64, width: Int, height: Int)
  /// A row of the grid as composed: its photos, their selection marks and its size.
  case gridRow(photos: [BlobID], selected: [Bool], width: Int, height: Int)
}

/// What the viewer draws: a photo (RGB) or a grid row (RGBA, transparent gutters).
enum Picture {
  case photo(RGBImage)
  /// Pixels made for this one drawing (a photo shrunk to the screen): the drawer zeroes
  /// them once it has used them.
  case shrunk(RGBImage)
  case gridRow(GridRowImage)

  var size: PixelSize {
    switch self {
    case .photo(let image), .shrunk(let image): return PixelSize(width: image.width, height: image.height)
    case .gridRow(let row): return PixelSize(width: row.width, height: row.height)
    }
  }
}

/// Draws pictures into whole character cells of the full screen.
protocol PictureDrawing: AnyObject {
  /// Starts a frame: pictures of the last frame are taken off the screen.
  func beginFrame() -> [UInt8]
  /// The bytes that draw `source` (a part of the picture `key` names, in its pixels) into
  /// `columns`×`rows` cells whose top-left cell is (`column`, `row`), 0-based. `picture` is
  /// asked for only when the terminal does not hold it already.
  func draw(
    key: PictureKey, source: PixelRect, column: Int, row: Int, columns: Int, rows: Int,
    picture: () -> Picture
  ) -> [UInt8]
  /// The bytes that send the picture `key` names to the terminal now, without showing it,
  /// unless it holds it already (kitty; others draw from the picture itself): written
  /// before a frame begins, so that the frame itself is only placements and text, which
  /// kitty shows whole (its synchronized output holds about a megabyte: a frame with an
  /// upload in it was shown before its picture was placed, black).
  func upload(key: PictureKey, picture: () -> Picture) -> [UInt8]
  /// Sends the picture `key` names to the terminal without showing it, so that drawing it
  /// later costs only a placement (kitty: the photos decoded ahead). Its upload is made in
  /// the background (`picture` is called there): the bytes to write once it is made, empty
  /// until then; the drawer's owner is told when one is made.
  func preload(key: PictureKey, picture: @escaping @Sendable () -> Picture) -> [UInt8]
  /// Forgets what the terminal was sent: after Ctrl-Z and `fg`, kitty has dropped the
  /// images of the screen it left.
  func invalidate()
  /// Ends a frame: pictures the terminal keeps that were not drawn in it and are not in
  /// `keep` are forgotten.
  func endFrame(keep: Set<PictureKey>) -> [UInt8]
  /// Removes everything this drawer left in the terminal (on exit).
  func finish() -> [UInt8]
}

/// The kitty graphics protocol: each picture is sent once (direct transmission, never a
/// file) and then placed with a source rectangle, so zooming and panning send no pixels.
final class KittyPictureDrawing: PictureDrawing {
  private var sent: [PictureKey: UInt32] = [:]
  private var drawnThisFrame: Set<PictureKey> = []
  private var nextID: UInt32 = 1
  private let ahead: KittyUploadsAhead
  /// How many times kitty failed to place each picture; past `resends`, it is not sent again.
  private var refusals: [PictureKey: Int] = [:]
  static let resends = 2

  /// Inside tmux, the pane: every command goes through its passthrough.
  var tmux: TmuxPane?

  /// `madeAhead` is called (on a background thread) when an upload sent ahead is made.
  init(tmux: TmuxPane? = nil, madeAhead: @escaping @Sendable () -> Void = {}) {
    self.tmux = tmux
    ahead = KittyUploadsAhead(madeOne: madeAhead)
  }

  /// `commands` as the terminal is sent them: through tmux's passthrough inside tmux.
  private func passed(_ commands: [UInt8]) -> [UInt8] {
    tmux == nil || commands.isEmpty ? commands : TmuxPassthrough.wrapped(commands)
  }

  /// An upload as the terminal is sent it; inside tmux, the upload itself is zeroed.
  private func passed(upload: [UInt8]) -> [UInt8] {
    var bytes = upload
    if tmux != nil, !bytes.isEmpty {
      TmuxPassthrough.wrap(&bytes, spareCapacity: KittyGraphics.spareCapacity)
    }
    return bytes
  }

  func beginFrame() -> [UInt8] {
    drawnThisFrame = []
    return passed(KittyGraphics.deletePlacements())
  }

  func draw(
    key: PictureKey, source: PixelRect, column: Int, row: Int, columns: Int, rows: Int,
    picture: () -> Picture
  ) -> [UInt8] {
    if refusals[key, default: 0] > Self.resends { return [] }
    var bytes = upload(key: key, picture: picture)
    let id = sent[key]!
    drawnThisFrame.insert(key)
    // tmux would hand kitty's answer to a failed placement to vault as keys: none is asked for.
    let placement = KittyGraphics.place(
      id: id, placement: 1, source: source, columns: columns, rows: rows, answered: tmux == nil)
    bytes +=
      tmux?.placed(placement, row: row, column: column)
      ?? Array("\u{1B}[\(row + 1);\(column + 1)H".utf8) + placement
    return bytes
  }

  /// The upload of `key` unless the terminal holds it: the one made ahead if it is made,
  /// else made now, as PNG too: a fitted photo's PNG takes a few tens of milliseconds to
  /// make and is 40% of its raw pixels' bytes (1.75 MB of Base64 instead of 4.25 MB for
  /// 1190×893 pixels). Paging usually draws the new photo this way (its neighbour is
  /// decoded once it shows), so this is most of what a page costs, in kitty and over ssh.
  /// kitty 0.26 takes about as long for either (it handles pixels, not bytes).
  func upload(key: PictureKey, picture: () -> Picture) -> [UInt8] {
    if sent[key] != nil { return [] }
    if let made = ahead.take(key) {
      sent[key] = made.id
      return passed(upload: made.bytes)
    }
    ahead.forget(key)
    let id = newID()
    sent[key] = id
    return passed(upload: KittyUploadsAhead.compressedUpload(id: id, picture()))
  }

  func preload(key: PictureKey, picture: @escaping @Sendable () -> Picture) -> [UInt8] {
    if sent[key] != nil { return [] }
    if let made = ahead.take(key) {
      sent[key] = made.id
      return passed(upload: made.bytes)
    }
    if !ahead.has(key) { ahead.make(KittyUploadsAhead.Job(key: key, id: newID(), picture: picture)) }
    return []
  }

  /// An id for a new upload: one the terminal holds blank (`endFrame`) if there is one, so
  /// that the number of images it holds stays that of the pictures in use.
  private func newID() -> UInt32 {
    if let id = blanks.popLast() { return id }
    let id = nextID
    nextID = nextID == UInt32.max ? 1 : nextID + 1
    return id
  }

  func invalidate() {
    sent = [:]
  }

  /// kitty failed to place image `id` (it evicted or dropped it): it is forgotten, so the
  /// next frame sends it again. Returns whether the drawer gives up on that picture (it
  /// failed more than `resends` times); an id it no longer holds is ignored.
  func placementFailed(imageID id: UInt32) -> Bool {
    guard let key = sent.first(where: { $0.value == id })?.key else { return false }
    sent[key] = nil
    refusals[key, default: 0] += 1
    return refusals[key]! > Self.resends
  }

  /// Images whose deletion is in the frame being sent: until it is sent, they are still
  /// the terminal's.
  private var deleting: [UInt32] = []
  /// Images the terminal holds as one blank pixel, whose ids new uploads take.
  private var blanks: [UInt32] = []

  /// What the terminal must be told on exit, even by a signal handler: every image sent
  /// (or being sent) and not yet deleted, then whatever is placed.
  var cleanup: [UInt8] {
    passed(
      (Array(sent.values) + deleting + blanks).flatMap { KittyGraphics.delete(id: $0) }
        + KittyGraphics.deleteAll())
  }

  /// Pictures no longer wanted are blanked, not deleted (`KittyGraphics.blank`): a deletion
  /// by id made kitty 0.26 drop the photo just left and those sent ahead, placed nowhere
  /// once the frame began, and the next page placed what it no longer held: black inside
  /// tmux, where kitty's answer does not reach the viewer, and sent again outside it.
  func endFrame(keep: Set<PictureKey>) -> [UInt8] {
    // Uploads made ahead for pictures no longer wanted are wiped now, not kept.
    ahead.keep { drawnThisFrame.contains($0) || keep.contains($0) }
    var bytes: [UInt8] = []
    for (key, id) in sent where !drawnThisFrame.contains(key) && !keep.contains(key) {
      bytes += KittyGraphics.blank(id: id)
      deleting.append(id)
      blanks.append(id)
      sent[key] = nil
    }
    return passed(bytes)
  }

  /// The frame with the last deletions was sent.
  func deletionsSent() {
    deleting = []
  }

  /// Every image by id, then whatever is placed: kitty from 0.38.1 on frees with `d=A` only
  /// the images placed, not the blanks or those sent ahead.
  func finish() -> [UInt8] {
    let bytes = cleanup
    sent = [:]
    blanks = []
    ahead.keep { _ in false }
    return bytes
  }
}

/// libchafa: Unicode symbols in colour, sixels or iTerm2 images, drawn anew each frame from
/// the part of the picture on screen.
final class ChafaPictureDrawing: PictureDrawing {
  private let graphics: TerminalGraphics

  init(graphics: TerminalGraphics) {
    self.graphics = graphics
  }

  /// libchafa draws on a pool of threads that do not block the full screen's signals: a
  /// handler could then run beside the main thread. One thread, the calling one, draws.
  static func drawOnCallingThreadOnly() {
    chafa_set_n_threads(1)
  }

  func beginFrame() -> [UInt8] { [] }

  func draw(
    key: PictureKey, source: PixelRect, column: Int, row: Int, columns: Int, rows: Int,
    picture: () -> Picture
  ) -> [UInt8] {
    var pixels: PicturePixels
    switch picture() {
    case .photo(let image): pixels = PicturePixels.rgb(image).cropped(to: source)
    case .shrunk(let image):
      defer { image.pixels.wipeShared() }
      pixels = PicturePixels.rgb(image).cropped(to: source)
    case .gridRow(let row): pixels = .rgba(pixels: row.pixels, width: row.width, height: row.height)
    }
    defer { if case .rgb = pixels { pixels.wipe() } }
    var bytes: [UInt8] = []
    // A sixel picture larger than the terminal shows is drawn as several, each placed.
    for (tile, lines) in graphics.render(pixels, columns: columns, rows: rows) {
      if graphics.pixelMode != CHAFA_PIXEL_MODE_SYMBOLS {
        bytes += graphics.placed(
          Array(lines.joined().utf8), row: row + tile.row, column: column + tile.column)
        continue
      }
      for (offset, line) in lines.enumerated() where offset < tile.rows {
        bytes += Array("\u{1B}[\(row + tile.row + offset + 1);\(column + tile.column + 1)H".utf8)
        bytes += Array(line.utf8)
      }
    }
    return bytes
  }

  func upload(key: PictureKey, picture: () -> Picture) -> [UInt8] { [] }

  func preload(key: PictureKey, picture: @escaping @Sendable () -> Picture) -> [UInt8] { [] }

  func invalidate() {}

  func endFrame(keep: Set<PictureKey>) -> [UInt8] { [] }

  func finish() -> [UInt8] { [] }
}
