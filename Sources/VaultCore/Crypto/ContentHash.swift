/// A photo's keyed content hash (`PhotoRecord.contentHash`), kept as its 32 bytes, so that
/// a record decoded from the journal holds no text of it; text that is not 64 lowercase hex
/// digits (which only a forged format-1 record or original holds) is kept as it is, so
/// that it compares and is written back as it was read.
enum ContentHash: Hashable, Sendable {
  case bytes(UInt64, UInt64, UInt64, UInt64)
  case text(String)

  static let length = 32

  init(_ text: String) {
    let digits = Array(text.utf8)
    guard digits.count == Self.length * 2,
      digits.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }),
      let bytes = decodeHex(text)
    else {
      self = .text(text)
      return
    }
    self = bytes.withUnsafeBytes { Self(bytes: $0) }
  }

  /// The hash of exactly `length` bytes.
  init(bytes: UnsafeRawBufferPointer) {
    precondition(bytes.count == Self.length)
    func word(_ index: Int) -> UInt64 {
      UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
    }
    self = .bytes(word(0), word(1), word(2), word(3))
  }

  /// 64 lowercase hex digits (or the text as it was read).
  var text: String {
    switch self {
    case .text(let text): return text
    case .bytes: return hexString(encoded)
    }
  }

  /// The bytes a journal entry holds: the hash's, or for text those its hex gives (none
  /// when it is not hex: the entry is then refused when read, as it always was).
  var encoded: [UInt8] {
    switch self {
    case .text(let text): return decodeHex(text) ?? []
    case .bytes(let a, let b, let c, let d):
      var bytes: [UInt8] = []
      bytes.reserveCapacity(Self.length)
      for word in [a, b, c, d] { withUnsafeBytes(of: word.bigEndian) { bytes += $0 } }
      return bytes
    }
  }
}
