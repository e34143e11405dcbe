/// The image formats vault imports, recognised by their first bytes, not their names.
public enum ImageFormat: String, Codable, Sendable {
  case jpeg
  case png

  /// Bytes needed to recognise every format.
  static let signatureLength = 8

  /// The format whose signature starts `bytes`, or nil.
  public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
    if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    return nil
  }
}
