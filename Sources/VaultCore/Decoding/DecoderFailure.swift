/// A helper's answer that a file could not be read (`failure`): the error it met, without
/// the file's name, which the parent supplies. Errors of kinds a decoder does not raise
/// travel as their text, read back as a decode failure.
package enum DecoderFailure {
  private enum Tag: UInt8 {
    case decodeFailed = 1
    case videoUnreadable, imageTooLarge, tooMuchMemory, unsupportedFormat, io
    /// Decoding ran out of the helper's memory (a failed allocation it could report).
    case memoryExhausted
  }

  package static func payload(for error: Error) -> [UInt8] {
    var writer = ByteWriter()
    if isAllocationFailure(error) {
      writer.byte(Tag.memoryExhausted.rawValue)
      return writer.output
    }
    switch error as? VaultError {
    case .decodeFailed(_, let reason)?: tagged(.decodeFailed, reason, into: &writer)
    case .videoUnreadable(_, let reason)?: tagged(.videoUnreadable, reason, into: &writer)
    case .io(_, let reason)?: tagged(.io, reason, into: &writer)
    case .imageTooLarge(_, let width, let height, let limit)?:
      writer.byte(Tag.imageTooLarge.rawValue)
      for value in [width, height, limit] { writer.int64(Int64(value)) }
    case .tooMuchMemory(_, let bytes, let limit)?:
      writer.byte(Tag.tooMuchMemory.rawValue)
      for value in [bytes, limit] { writer.int64(Int64(value)) }
    case .unsupportedFormat(_, let image)?:
      writer.byte(Tag.unsupportedFormat.rawValue)
      writer.optional(image) { $0.text($1) }
    case .decoderRefused?: writer.byte(Tag.memoryExhausted.rawValue)
    default: tagged(.decodeFailed, "\(error)", into: &writer)
    }
    return writer.output
  }

  /// The payload of a helper's failure as it reads in the error the parent reports
  /// about `path`; nil when malformed.
  package static func error(from payload: [UInt8], path: String, memoryLimit: Int) -> VaultError? {
    payload.withUnsafeBytes { buffer -> VaultError? in
      var reader = ByteReader(buffer)
      guard let tag = reader.byte().flatMap(Tag.init(rawValue:)) else { return nil }
      let error: VaultError?
      switch tag {
      case .decodeFailed: error = reader.text(limit: 1024).map { .decodeFailed(path: path, reason: $0) }
      case .videoUnreadable: error = reader.text(limit: 1024).map { .videoUnreadable(path: path, reason: $0) }
      case .io: error = reader.text(limit: 1024).map { .io(path: path, reason: $0) }
      case .imageTooLarge:
        guard let width = reader.integer(in: 0...Int64(Int32.max)),
          let height = reader.integer(in: 0...Int64(Int32.max)),
          let limit = reader.integer(in: 0...Int64.max)
        else { return nil }
        error = .imageTooLarge(path: path, width: Int(width), height: Int(height), limit: Int(limit))
      case .tooMuchMemory:
        guard let bytes = reader.integer(in: 0...Int64.max), let limit = reader.integer(in: 0...Int64.max)
        else {
          return nil
        }
        error = .tooMuchMemory(path: path, bytes: Int(bytes), limit: Int(limit))
      case .unsupportedFormat:
        error = reader.optional({ $0.text(limit: 64) }).map { .unsupportedFormat(path: path, image: $0) }
      case .memoryExhausted:
        error = .decoderRefused(path: path, reason: DecoderDeath.memoryReason(limit: memoryLimit))
      }
      return reader.remaining == 0 ? error : nil
    }
  }

  /// Whether a codec gave up because an allocation failed (the helper's address space is
  /// full): libjpeg's "Insufficient memory", FFmpeg's ENOMEM, libheif's and libavif's
  /// allocation errors. The user is told the limit, not the codec's words.
  package static func isAllocationFailure(_ error: Error) -> Bool {
    let reason: String
    switch error as? VaultError {
    case .decodeFailed(_, let text)?, .videoUnreadable(_, let text)?: reason = text.lowercased()
    default: return false
    }
    return ["insufficient memory", "out of memory", "cannot allocate memory", "memory allocation"].contains {
      reason.contains($0)
    }
  }

  private static func tagged(_ tag: Tag, _ reason: String, into writer: inout ByteWriter) {
    writer.byte(tag.rawValue)
    writer.text(String(decoding: Array(reason.utf8.prefix(1000)), as: UTF8.self))
  }
}
