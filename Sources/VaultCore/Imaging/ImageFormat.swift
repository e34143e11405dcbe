/// The image formats vault imports, recognised by their first bytes, not their names.
public enum ImageFormat: String, Codable, Sendable {
  case jpeg
  case png

  /// Bytes needed to recognise every format, and the image formats vault names but does
  /// not import (an ISO media file's `ftyp` box ends at byte 12).
  static let signatureLength = 12

  /// The format whose signature starts `bytes`, or nil.
  public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
    if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    return nil
  }

  /// The name of an image format vault recognises but does not import, with whether
  /// support is planned (HEIC), or nil for a file that is no image vault knows of.
  public static func unsupportedImage(_ bytes: [UInt8]) -> (name: String, planned: Bool)? {
    if bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) {
      let brand = String(decoding: bytes[8..<12], as: UTF8.self)
      if ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1"].contains(brand) {
        return ("HEIC/HEIF", true)
      }
      if brand == "avif" || brand == "avis" { return ("AVIF", false) }
      return nil
    }
    if bytes.starts(with: Array("GIF8".utf8)) { return ("GIF", false) }
    if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) {
      return ("WebP", false)
    }
    if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
      return ("TIFF", false)
    }
    return nil
  }

  /// The format of a file that starts with `signature`; any other file is refused with
  /// `unsupportedFormat`, naming `path` and the image format it is, when known.
  static func recognise(_ signature: [UInt8], path: String) throws -> ImageFormat {
    if let format = sniff(signature) { return format }
    let image = unsupportedImage(signature)
    throw VaultError.unsupportedFormat(path: path, image: image?.name, planned: image?.planned ?? false)
  }
}
