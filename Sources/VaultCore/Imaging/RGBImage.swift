/// An 8-bit RGB picture in memory, row by row with no padding.
public struct RGBImage: Equatable, Sendable {
  public var width: Int
  public var height: Int
  public var pixels: [UInt8]

  public init(width: Int, height: Int, pixels: [UInt8]) {
    precondition(pixels.count == width * height * 3)
    self.width = width
    self.height = height
    self.pixels = pixels
  }

  /// The picture as it should be shown for an EXIF orientation (1...8).
  public func oriented(_ orientation: Int) -> RGBImage {
    guard (2...8).contains(orientation), width > 0, height > 0 else { return self }
    var canvas = OrientedCanvas(storedWidth: width, storedHeight: height, orientation: orientation)
    pixels.withUnsafeBufferPointer { buffer in
      for y in 0..<height { canvas.addRow(buffer.baseAddress! + y * width * 3) }
    }
    return canvas.finish()
  }
}

extension RGBImage {
  /// Decodes a JPEG held in memory (a thumbnail): at full size, or with a minimum size, at
  /// the smallest DCT scale that still gives at least `minimumWidth`×`minimumHeight` pixels.
  /// `thumbnail`: the JPEG is a stored thumbnail, which vault makes at most `Thumbnailer`'s
  /// 512 pixels a side: one larger than `thumbnailSideLimit` (a thumbnail sealed by
  /// whoever else holds the password, in a synced copy) is refused before it is decoded,
  /// and libjpeg's memory is capped, as an original's is at import.
  public static func decodeJPEG(
    _ bytes: [UInt8], name: String, minimumWidth: Int = 0, minimumHeight: Int = 0, thumbnail: Bool = false
  ) throws -> RGBImage {
    let decoder = try JPEGDecoder(bytes: bytes, name: name)
    if thumbnail && max(decoder.width, decoder.height) > thumbnailSideLimit {
      throw VaultError.damagedBlob(
        what: name,
        reason:
          "it is \(decoder.width)×\(decoder.height), larger than a thumbnail can be (\(thumbnailSideLimit) a side)"
      )
    }
    let denominator =
      minimumWidth <= 0 && minimumHeight <= 0
      ? 1
      : JPEGDecoder.scaleDenominator(
        width: decoder.width, height: decoder.height, targetWidth: max(1, minimumWidth),
        targetHeight: max(1, minimumHeight))
    return try decode(
      decoder, scaleDenominator: denominator, orientation: 1,
      memoryLimit: thumbnail ? thumbnailMemoryLimit : 0)
  }

  /// Decodes a JPEG at 1/`scaleDenominator` into its shown orientation; what was decoded
  /// of a picture that fails is wiped.
  package static func decode(
    _ decoder: JPEGDecoder, scaleDenominator: Int, orientation: Int, memoryLimit: Int = 0
  ) throws -> RGBImage {
    guard decoder.width > 0, decoder.height > 0 else {
      throw VaultError.decodeFailed(path: decoder.path, reason: "image has no pixels")
    }
    var canvas = OrientedCanvas(
      storedWidth: (decoder.width + scaleDenominator - 1) / scaleDenominator,
      storedHeight: (decoder.height + scaleDenominator - 1) / scaleDenominator, orientation: orientation)
    do {
      let size = try decoder.decode(scaleDenominator: scaleDenominator, memoryLimit: memoryLimit) { row in
        canvas.addRow(row)
      }
      guard size.width == canvas.storedWidth, size.height == canvas.storedHeight, canvas.isComplete else {
        throw VaultError.decodeFailed(path: decoder.path, reason: "the picture ends early")
      }
    } catch {
      canvas.wipe()
      throw error
    }
    return canvas.finish()
  }

  /// The largest side a stored thumbnail may have: four times what vault makes.
  public static let thumbnailSideLimit = 2048
  /// What libjpeg may hold to decode a thumbnail (a 2048² progressive JPEG needs 24 MiB).
  static let thumbnailMemoryLimit = 64 << 20

  /// The picture scaled to fill exactly `width`×`height`, keeping its aspect: the centre
  /// is kept and the overflowing sides are cut off (like Agony's grid cells). Shrinking
  /// averages areas; enlarging (a picture smaller than the cell) repeats pixels.
  public func aspectFilled(width targetWidth: Int, height targetHeight: Int) -> RGBImage {
    precondition(targetWidth > 0 && targetHeight > 0)
    // The largest centred rectangle of the target's aspect.
    var cropWidth = width
    var cropHeight = Int((Double(width) * Double(targetHeight) / Double(targetWidth)).rounded())
    if cropHeight > height {
      cropHeight = height
      cropWidth = Int((Double(height) * Double(targetWidth) / Double(targetHeight)).rounded())
    }
    cropWidth = max(1, min(width, cropWidth))
    cropHeight = max(1, min(height, cropHeight))
    let left = (width - cropWidth) / 2
    let top = (height - cropHeight) / 2
    if cropWidth >= targetWidth && cropHeight >= targetHeight {
      var resampler = AreaResampler(
        sourceWidth: cropWidth, sourceHeight: cropHeight, targetWidth: targetWidth, targetHeight: targetHeight
      )
      pixels.withUnsafeBufferPointer { buffer in
        for y in top..<(top + cropHeight) { resampler.addRow(buffer.baseAddress! + (y * width + left) * 3) }
      }
      return resampler.finish()
    }
    var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * 3)
    for y in 0..<targetHeight {
      let sourceY = top + min(cropHeight - 1, y * cropHeight / targetHeight)
      for x in 0..<targetWidth {
        let sourceX = left + min(cropWidth - 1, x * cropWidth / targetWidth)
        let from = (sourceY * width + sourceX) * 3
        let to = (y * targetWidth + x) * 3
        output[to] = pixels[from]
        output[to + 1] = pixels[from + 1]
        output[to + 2] = pixels[from + 2]
      }
    }
    return RGBImage(width: targetWidth, height: targetHeight, pixels: output)
  }
}

extension RGBImage {
  /// The part of the picture inside `rect`, clamped to the picture (at least 1×1).
  public func cropped(to rect: PixelRect) -> RGBImage {
    let left = min(max(0, rect.x), width - 1)
    let top = min(max(0, rect.y), height - 1)
    let cropWidth = max(1, min(rect.width, width - left))
    let cropHeight = max(1, min(rect.height, height - top))
    if left == 0 && top == 0 && cropWidth == width && cropHeight == height { return self }
    var output = [UInt8](repeating: 0, count: cropWidth * cropHeight * 3)
    pixels.withUnsafeBufferPointer { source in
      output.withUnsafeMutableBufferPointer { target in
        for y in 0..<cropHeight {
          let from = ((top + y) * width + left) * 3
          let to = y * cropWidth * 3
          target.baseAddress!.advanced(by: to).update(from: source.baseAddress! + from, count: cropWidth * 3)
        }
      }
    }
    return RGBImage(width: cropWidth, height: cropHeight, pixels: output)
  }
}
