/// Standard base64 (RFC 4648, with `=` padding), written for the kitty graphics protocol's
/// pixel payloads: a 12-megapixel photo is 36 MB of RGB, so the encoder writes straight
/// into memory the caller has sized, two characters per table look-up.
enum Base64 {
  static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// The two characters of every 12-bit value, in memory order (the first at the lower
  /// address), so that one 16-bit store writes both.
  private static let pairs: [UInt16] = (0..<4096).map { value in
    (UInt16(alphabet[value >> 6]) | UInt16(alphabet[value & 63]) << 8).littleEndian
  }

  /// How many characters `count` bytes encode to.
  static func encodedCount(_ count: Int) -> Int { (count + 2) / 3 * 4 }

  /// Encodes `source` into `destination`, which has room for `encodedCount(source.count)`
  /// bytes.
  static func encode(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawPointer) {
    guard let input = source.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
    let count = source.count
    let whole = count / 3 * 3
    pairs.withUnsafeBufferPointer { pairs in
      let pairs = pairs.baseAddress!
      var from = 0
      var to = 0
      while from < whole {
        let bits = Int(input[from]) << 16 | Int(input[from + 1]) << 8 | Int(input[from + 2])
        destination.storeBytes(of: pairs[bits >> 12], toByteOffset: to, as: UInt16.self)
        destination.storeBytes(of: pairs[bits & 0xFFF], toByteOffset: to + 2, as: UInt16.self)
        from += 3
        to += 4
      }
      let output = destination.assumingMemoryBound(to: UInt8.self)
      let padding = UInt8(ascii: "=")
      switch count - whole {
      case 1:
        let bits = Int(input[from]) << 4
        output[to] = alphabet[bits >> 6]
        output[to + 1] = alphabet[bits & 63]
        output[to + 2] = padding
        output[to + 3] = padding
      case 2:
        let bits = Int(input[from]) << 10 | Int(input[from + 1]) << 2
        output[to] = alphabet[bits >> 12]
        output[to + 1] = alphabet[(bits >> 6) & 63]
        output[to + 2] = alphabet[bits & 63]
        output[to + 3] = padding
      default:
        break
      }
    }
  }
}
