import CVaultImaging
import VaultCore

/// A PNG file opened through libpng; decodes to 8-bit RGBA, row by row where it can.
package final class PNGDecoder {
  private let reader: OpaquePointer
  /// Names the picture in errors.
  package let path: String
  /// What libpng reads until the reader is closed: bytes in memory or an open file.
  private let input: AnyObject

  /// Decodes a PNG held in memory; `name` stands for it in errors.
  package convenience init(bytes source: [UInt8], name: String) throws {
    try self.init(pinned: PinnedBytes(source), name: name)
  }

  /// Decodes a PNG held in memory, without copying it; `name` stands for it in errors.
  package init(pinned: PinnedBytes, name: String) throws {
    path = name
    input = pinned
    var message = [CChar](repeating: 0, count: Int(VAULT_IMAGING_MESSAGE_LENGTH))
    guard let reader = vault_png_open_memory(pinned.baseAddress, pinned.count, &message, message.count) else {
      throw VaultError.decodeFailed(path: name, reason: String(nulTerminated: message))
    }
    self.reader = reader
  }

  /// Decodes a file through its one open descriptor.
  package init(file: SourceFile) throws {
    path = file.path
    input = file
    var message = [CChar](repeating: 0, count: Int(VAULT_IMAGING_MESSAGE_LENGTH))
    guard let reader = vault_png_open_descriptor(file.descriptor, &message, message.count) else {
      throw VaultError.decodeFailed(path: path, reason: String(nulTerminated: message))
    }
    self.reader = reader
  }

  deinit {
    vault_png_close(reader)
  }

  package var width: Int { Int(vault_png_width(reader)) }
  package var height: Int { Int(vault_png_height(reader)) }

  private func failure() -> VaultError {
    let message = String(cString: vault_png_error(reader))
    // libpng's stdio reader says only "Read Error" when the file ends early.
    let reason = message == "Read Error" ? "the file ends too early (truncated)" : message
    return .decodeFailed(path: path, reason: reason)
  }

  package var isInterlaced: Bool { vault_png_is_interlaced(reader) != 0 }

  /// Decodes the image, handing each RGBA row to `consume`, then checks the file's end.
  /// With `lastPassOnly`, an interlaced image yields only its odd rows (`height / 2` rows),
  /// decoded in one row of memory instead of the whole picture.
  package func decode(lastPassOnly: Bool = false, consume: (UnsafePointer<UInt8>) -> Void) throws {
    let streamLastPass = lastPassOnly && isInterlaced && height >= 2
    guard vault_png_start(reader, streamLastPass ? 1 : 0) == 0 else { throw failure() }
    let stride = width * 4
    if isInterlaced && !streamLastPass {
      // Adam7 passes fill the picture in several sweeps; only the whole image is final.
      var pixels = [UInt8](repeating: 0, count: stride * height)
      // The picture may be a decrypted photo.
      defer { pixels.wipe() }
      guard vault_png_read_image(reader, &pixels) == 0 else { throw failure() }
      pixels.withUnsafeBufferPointer { buffer in
        for row in 0..<height { consume(buffer.baseAddress! + row * stride) }
      }
    } else {
      let rowsPerRead = 16
      var rows = [UInt8](repeating: 0, count: stride * rowsPerRead)
      defer { rows.wipe() }
      try rows.withUnsafeMutableBufferPointer { buffer in
        while true {
          let count = vault_png_read_rows(reader, buffer.baseAddress, Int32(rowsPerRead))
          if count < 0 { throw failure() }
          if count == 0 { break }
          for row in 0..<Int(count) { consume(UnsafePointer(buffer.baseAddress! + row * stride)) }
        }
      }
    }
    guard vault_png_finish(reader) == 0 else { throw failure() }
  }
}
