import CVaultImaging

/// A JPEG file opened through libjpeg-turbo; decodes row by row at a DCT scale.
final class JPEGDecoder {
  private let reader: OpaquePointer
  /// Names the picture in errors.
  let path: String
  /// A picture decoded from memory: libjpeg reads these bytes until the reader is closed.
  private let bytes: PinnedBytes?

  init(path: String) throws {
    self.path = path
    bytes = nil
    var message = [CChar](repeating: 0, count: Int(VAULT_IMAGING_MESSAGE_LENGTH))
    guard let reader = vault_jpeg_open(path, &message, message.count) else {
      throw VaultError.decodeFailed(path: path, reason: String(cString: message))
    }
    self.reader = reader
  }

  /// Decodes a JPEG held in memory; `name` stands for it in errors.
  init(bytes source: [UInt8], name: String) throws {
    path = name
    let copy = PinnedBytes(source)
    var message = [CChar](repeating: 0, count: Int(VAULT_IMAGING_MESSAGE_LENGTH))
    guard let reader = vault_jpeg_open_memory(copy.baseAddress, copy.count, &message, message.count) else {
      throw VaultError.decodeFailed(path: name, reason: String(cString: message))
    }
    self.reader = reader
    bytes = copy
  }

  deinit {
    vault_jpeg_close(reader)
  }

  var width: Int { Int(vault_jpeg_width(reader)) }
  var height: Int { Int(vault_jpeg_height(reader)) }

  /// The first warning libjpeg gave (corrupt or missing data it could decode past).
  var warning: String? {
    vault_jpeg_warning(reader).map { String(cString: $0) }
  }

  /// The EXIF orientation from the first APP1 segment that holds one, else 1.
  func orientation() -> Int {
    var index = 0
    while true {
      var length = 0
      guard let data = vault_jpeg_app1(reader, index, &length) else { return 1 }
      if let value = ExifOrientation.read(app1: Array(UnsafeBufferPointer(start: data, count: length))) {
        return value
      }
      index += 1
    }
  }

  /// Decodes at 1/denominator size, handing each RGB row to `consume`.
  func decode(scaleDenominator: Int, consume: (UnsafePointer<UInt8>) -> Void) throws -> (
    width: Int, height: Int
  ) {
    var outputWidth: UInt32 = 0
    var outputHeight: UInt32 = 0
    guard vault_jpeg_start(reader, UInt32(scaleDenominator), &outputWidth, &outputHeight) == 0 else {
      throw VaultError.decodeFailed(path: path, reason: String(cString: vault_jpeg_error(reader)))
    }
    let rowsPerRead = 16
    var rows = [UInt8](repeating: 0, count: Int(outputWidth) * 3 * rowsPerRead)
    try rows.withUnsafeMutableBufferPointer { buffer in
      while true {
        let count = vault_jpeg_read_rows(reader, buffer.baseAddress, Int32(rowsPerRead))
        if count < 0 {
          throw VaultError.decodeFailed(path: path, reason: String(cString: vault_jpeg_error(reader)))
        }
        if count == 0 { break }
        for row in 0..<Int(count) {
          consume(UnsafePointer(buffer.baseAddress! + row * Int(outputWidth) * 3))
        }
      }
    }
    return (Int(outputWidth), Int(outputHeight))
  }

  /// The largest DCT scale denominator (8, 4, 2 or 1) that still leaves at least
  /// `targetWidth`×`targetHeight` pixels.
  static func scaleDenominator(width: Int, height: Int, targetWidth: Int, targetHeight: Int) -> Int {
    for denominator in [8, 4, 2] {
      let scaledWidth = (width + denominator - 1) / denominator
      let scaledHeight = (height + denominator - 1) / denominator
      if scaledWidth >= targetWidth && scaledHeight >= targetHeight { return denominator }
    }
    return 1
  }
}
