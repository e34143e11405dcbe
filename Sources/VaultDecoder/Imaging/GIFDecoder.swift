import CGif
import VaultCore

/// A GIF, a still or an animation, decoded through giflib from bytes in memory. Its block
/// structure is walked first (`GIFStructure`), so its size and frame count are known
/// before giflib allocates anything; then giflib decodes the first frame only, drawn on
/// the logical screen (transparent where the frame does not cover it). GIF carries no
/// date taken.
final class GIFDecoder: FrameDecoder {
  let path: String
  let input: GIFMemoryInput
  private let structure: GIFStructure

  init(pinned: PinnedBytes, name: String) throws {
    path = name
    input = GIFMemoryInput(pinned)
    do {
      structure = try GIFStructure(UnsafeRawBufferPointer(start: pinned.baseAddress, count: pinned.count))
    } catch let damage as GIFStructure.Damage {
      throw VaultError.decodeFailed(path: name, reason: damage.reason)
    }
  }

  var width: Int { structure.canvasWidth }
  var height: Int { structure.canvasHeight }
  var frameCount: Int { structure.frameCount }
  var largestFramePixels: Int { structure.largestFramePixels }
  let orientation = 1

  /// The canvas as RGBA, a row of the frame's colour indices, giflib's LZW tables and
  /// colour maps, and the file.
  var decodingBytes: Int {
    width * height * 4 + structure.firstFrame.width + (64 << 10) + input.pinned.count
  }

  func details() -> PhotoDetails { PhotoDetails() }

  func decodeFirstFrame() throws -> DecodedFrame {
    input.position = 0
    var error: Int32 = 0
    guard
      let gif = DGifOpen(Unmanaged.passUnretained(input).toOpaque(), GIFMemoryInput.read, &error)
    else {
      throw VaultError.decodeFailed(path: path, reason: Self.reason(error))
    }
    defer { DGifCloseFile(gif, &error) }
    var transparent: Int32 = -1
    while true {
      var type = UNDEFINED_RECORD_TYPE
      guard DGifGetRecordType(gif, &type) == GIF_OK else { throw failure(gif) }
      switch type {
      case EXTENSION_RECORD_TYPE:
        transparent = try readExtension(gif) ?? transparent
      case IMAGE_DESC_RECORD_TYPE:
        guard DGifGetImageDesc(gif) == GIF_OK else { throw failure(gif) }
        let frame = DecodedFrame(width: width, height: height)
        try drawImage(gif, transparent: transparent, onto: frame)
        return frame
      default:
        throw VaultError.decodeFailed(path: path, reason: "the GIF holds no picture")
      }
    }
  }

  /// Reads an extension through; returns the transparent colour index of a graphic
  /// control extension (-1 for none), nil for any other extension.
  private func readExtension(_ gif: UnsafeMutablePointer<GifFileType>) throws -> Int32? {
    var code: Int32 = 0
    var block: UnsafeMutablePointer<GifByteType>?
    guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw failure(gif) }
    var transparent: Int32?
    if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] == 4 {
      var control = GraphicsControlBlock()
      if DGifExtensionToGCB(4, block + 1, &control) == GIF_OK { transparent = control.TransparentColor }
    }
    while block != nil {
      guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw failure(gif) }
    }
    return transparent
  }

  /// Decodes the frame whose descriptor giflib just read onto `frame`, a canvas (all
  /// transparent for the first frame; an animation's later frames cover what came before).
  func drawImage(_ gif: UnsafeMutablePointer<GifFileType>, transparent: Int32, onto frame: DecodedFrame)
    throws
  {
    let image = gif.pointee.Image
    guard let colors = image.ColorMap ?? gif.pointee.SColorMap, let palette = colors.pointee.Colors else {
      throw VaultError.decodeFailed(path: path, reason: "the GIF has no colour table")
    }
    let frameWidth = Int(image.Width)
    let frameHeight = Int(image.Height)
    let (left, top) = (Int(image.Left), Int(image.Top))
    var line = [GifPixelType](repeating: 0, count: max(1, frameWidth))
    for y in Self.rowOrder(height: frameHeight, interlaced: image.Interlace) {
      guard DGifGetLine(gif, &line, Int32(frameWidth)) == GIF_OK else { throw failure(gif) }
      let canvasY = top + y
      guard canvasY < height else { continue }
      let row = frame.row(canvasY)
      for x in 0..<min(frameWidth, max(0, width - left)) {
        let index = Int32(line[x])
        guard index != transparent, index < colors.pointee.ColorCount else { continue }
        let color = palette[Int(index)]
        let pixel = row + (left + x) * 4
        (pixel[0], pixel[1], pixel[2], pixel[3]) = (color.Red, color.Green, color.Blue, 255)
      }
    }
  }

  /// The rows of a frame in the order its data holds them: an interlaced GIF stores every
  /// 8th row from 0, every 8th from 4, every 4th from 2, then every 2nd from 1.
  static func rowOrder(height: Int, interlaced: Bool) -> [Int] {
    guard interlaced else { return Array(0..<height) }
    return [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in
      Array(stride(from: start, to: height, by: step))
    }
  }

  func failure(_ gif: UnsafeMutablePointer<GifFileType>) -> VaultError {
    .decodeFailed(path: path, reason: Self.reason(gif.pointee.Error))
  }

  /// giflib's message, lowercased; a read past the end is a truncated file.
  static func reason(_ error: Int32) -> String {
    if error == D_GIF_ERR_READ_FAILED { return "the file ends too early (truncated)" }
    guard let message = GifErrorString(error) else { return "giflib error \(error)" }
    return String(cString: message).lowercased()
  }
}

/// The bytes giflib reads, and how far it has read: giflib asks for them through a
/// callback that finds this object in the file's user data.
final class GIFMemoryInput {
  let pinned: PinnedBytes
  var position = 0

  init(_ pinned: PinnedBytes) { self.pinned = pinned }

  /// Copies up to `count` bytes at the position; fewer at the end, as a file would.
  static let read: InputFunc = { gif, buffer, count in
    guard let gif, let buffer, let user = gif.pointee.UserData, count > 0 else { return 0 }
    let input = Unmanaged<GIFMemoryInput>.fromOpaque(user).takeUnretainedValue()
    let copied = min(Int(count), input.pinned.count - input.position)
    guard copied > 0, let base = input.pinned.baseAddress else { return 0 }
    buffer.update(from: base + input.position, count: copied)
    input.position += copied
    return Int32(copied)
  }
}
