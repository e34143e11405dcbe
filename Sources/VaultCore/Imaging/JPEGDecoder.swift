import CVaultImaging

/// A JPEG file opened through libjpeg-turbo; decodes row by row at a DCT scale.
package final class JPEGDecoder {
  private let reader: OpaquePointer
  /// Names the picture in errors.
  package let path: String
  /// What libjpeg reads until the reader is closed: bytes in memory or an open file.
  private let input: AnyObject

  /// Decodes a file through its one open descriptor.
  package init(file: SourceFile) throws {
    path = file.path
    input = file
    var message = [CChar](repeating: 0, count: Int(VAULT_IMAGING_MESSAGE_LENGTH))
    guard let reader = vault_jpeg_open_descriptor(file.descriptor, &message, message.count) else {
      throw VaultError.decodeFailed(path: path, reason: String(nulTerminated: message))
    }
    self.reader = reader
  }

  /// Decodes a JPEG held in memory; `name` stands for it in errors.
  convenience init(bytes source: [UInt8], name: String) throws {
    try self.init(pinned: PinnedBytes(source), name: name)
  }

  /// Decodes a JPEG held in memory, without copying it; `name` stands for it in errors.
  package init(pinned: PinnedBytes, name: String) throws {
    path = name
    input = pinned
    var message = [CChar](repeating: 0, count: Int(VAULT_IMAGING_MESSAGE_LENGTH))
    guard let reader = vault_jpeg_open_memory(pinned.baseAddress, pinned.count, &message, message.count)
    else {
      throw VaultError.decodeFailed(path: name, reason: String(nulTerminated: message))
    }
    self.reader = reader
  }

  deinit {
    vault_jpeg_close(reader)
  }

  package var width: Int { Int(vault_jpeg_width(reader)) }
  package var height: Int { Int(vault_jpeg_height(reader)) }
  package var components: Int { Int(vault_jpeg_components(reader)) }
  /// The bytes of DCT coefficients libjpeg holds at once for a progressive or otherwise
  /// multi-scan picture (0 for a baseline one), known from the header.
  package var coefficientBytes: Int { Int(clamping: vault_jpeg_coefficient_bytes(reader)) }

  /// The first warning libjpeg gave (corrupt or missing data it could decode past).
  package var warning: String? {
    vault_jpeg_warning(reader).map { String(cString: $0) }
  }

  /// The EXIF orientation from the first APP1 segment that holds one, else 1.
  package func orientation() -> Int {
    var index = 0
    while true {
      var length = 0
      guard let data = vault_jpeg_app1(reader, index, &length) else { return 1 }
      if let value = ExifReader(app1: UnsafeRawBufferPointer(start: data, count: length))?.orientation {
        return value
      }
      index += 1
    }
  }

  /// Decodes at 1/denominator size, handing each RGB row to `consume`; libjpeg's large
  /// buffers may take at most `memoryLimit` bytes (0: no limit). With `shrinksFurther`
  /// (the rows are averaged down to a smaller picture afterwards), libjpeg may use its
  /// faster, slightly less exact IDCT and chroma upsampling.
  package func decode(
    scaleDenominator: Int, memoryLimit: Int = 0, shrinksFurther: Bool = false,
    consume: (UnsafePointer<UInt8>) -> Void
  ) throws -> (width: Int, height: Int) {
    var outputWidth: UInt32 = 0
    var outputHeight: UInt32 = 0
    guard
      vault_jpeg_start(
        reader, UInt32(scaleDenominator), UInt64(memoryLimit), shrinksFurther ? 1 : 0, &outputWidth,
        &outputHeight) == 0
    else {
      throw VaultError.decodeFailed(path: path, reason: String(cString: vault_jpeg_error(reader)))
    }
    let rowsPerRead = 16
    var rows = [UInt8](repeating: 0, count: Int(outputWidth) * 3 * rowsPerRead)
    // The rows may be a decrypted photo's.
    defer { rows.wipe() }
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
  package static func scaleDenominator(width: Int, height: Int, targetWidth: Int, targetHeight: Int) -> Int {
    for denominator in [8, 4, 2] {
      let scaledWidth = (width + denominator - 1) / denominator
      let scaledHeight = (height + denominator - 1) / denominator
      if scaledWidth >= targetWidth && scaledHeight >= targetHeight { return denominator }
    }
    return 1
  }
}
