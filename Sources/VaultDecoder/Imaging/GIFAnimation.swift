import CGif
import VaultCore

/// A GIF's frames in order, each drawn on the canvas as the file says to (its disposal:
/// leave it, clear its rectangle, or go back to the canvas before it), with its delay.
/// One canvas is held, and a copy of it only while a frame asks to be undone.
final class GIFAnimation {
  private let decoder: GIFDecoder
  private var gif: UnsafeMutablePointer<GifFileType>?
  private let canvas: DecodedFrame
  /// How the last frame drawn is taken off before the next one: its disposal mode, its
  /// rectangle, and the canvas before it for mode 3.
  private var disposal: (mode: Int32, rect: PixelRect, before: DecodedFrame?)?

  init(_ decoder: GIFDecoder) {
    self.decoder = decoder
    canvas = DecodedFrame(width: decoder.width, height: decoder.height)
  }

  deinit { close() }

  /// The canvas with the next frame drawn, and how long it shows in milliseconds (as
  /// browsers do, a delay under 20 ms counts as 100); nil after the last frame.
  func next() throws -> (canvas: DecodedFrame, milliseconds: Int)? {
    if gif == nil { try open() }
    guard let gif else { return nil }
    var control = GraphicsControlBlock(
      DisposalMode: 0, UserInputFlag: false, DelayTime: 0, TransparentColor: -1)
    while true {
      var type = UNDEFINED_RECORD_TYPE
      guard DGifGetRecordType(gif, &type) == GIF_OK else { throw decoder.failure(gif) }
      switch type {
      case EXTENSION_RECORD_TYPE:
        control = try readControl(gif) ?? control
      case IMAGE_DESC_RECORD_TYPE:
        guard DGifGetImageDesc(gif) == GIF_OK else { throw decoder.failure(gif) }
        takeOffLastFrame()
        let image = gif.pointee.Image
        let rect = PixelRect(
          x: Int(image.Left), y: Int(image.Top), width: Int(image.Width), height: Int(image.Height))
        disposal = (control.DisposalMode, rect, control.DisposalMode == DISPOSE_PREVIOUS ? copy(canvas) : nil)
        try decoder.drawImage(gif, transparent: control.TransparentColor, onto: canvas)
        let delay = Int(control.DelayTime) * 10
        return (canvas, delay < 20 ? 100 : delay)
      default:
        return nil
      }
    }
  }

  /// Starts again from the first frame, on a transparent canvas.
  func rewind() {
    close()
    disposal = nil
    canvas.pixels.update(repeating: 0)
  }

  private func open() throws {
    decoder.input.position = 0
    var error: Int32 = 0
    guard
      let opened = DGifOpen(Unmanaged.passUnretained(decoder.input).toOpaque(), GIFMemoryInput.read, &error)
    else {
      throw VaultError.decodeFailed(path: decoder.path, reason: GIFDecoder.reason(error))
    }
    gif = opened
  }

  private func close() {
    var error: Int32 = 0
    if gif != nil { DGifCloseFile(gif, &error) }
    gif = nil
  }

  /// Reads an extension through; the graphic control block it carries, if it is one.
  private func readControl(_ gif: UnsafeMutablePointer<GifFileType>) throws -> GraphicsControlBlock? {
    var code: Int32 = 0
    var block: UnsafeMutablePointer<GifByteType>?
    guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw decoder.failure(gif) }
    var control: GraphicsControlBlock?
    if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] == 4 {
      var read = GraphicsControlBlock()
      if DGifExtensionToGCB(4, block + 1, &read) == GIF_OK { control = read }
    }
    while block != nil {
      guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw decoder.failure(gif) }
    }
    return control
  }

  /// Undoes the last frame as its disposal says: its rectangle cleared, or the canvas put
  /// back as it was before it.
  private func takeOffLastFrame() {
    guard let last = disposal else { return }
    disposal = nil
    if last.mode == DISPOSE_PREVIOUS, let before = last.before {
      canvas.pixels.baseAddress!.update(from: before.pixels.baseAddress!, count: canvas.pixels.count)
    } else if last.mode == DISPOSE_BACKGROUND {
      let right = min(canvas.width, last.rect.x + last.rect.width)
      let bottom = min(canvas.height, last.rect.y + last.rect.height)
      guard last.rect.x < right else { return }
      for y in max(0, last.rect.y)..<max(max(0, last.rect.y), bottom) {
        (canvas.row(y) + last.rect.x * 4).update(repeating: 0, count: (right - last.rect.x) * 4)
      }
    }
  }

  private func copy(_ frame: DecodedFrame) -> DecodedFrame {
    let copy = DecodedFrame(width: frame.width, height: frame.height)
    copy.pixels.baseAddress!.update(from: frame.pixels.baseAddress!, count: frame.pixels.count)
    return copy
  }
}
