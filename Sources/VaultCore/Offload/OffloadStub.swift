/// What stays on the disk of an offloaded original: `Offloaded/<id>`, the blob's size and
/// the MD5 of its bytes as one line of ASCII (docs/FORMAT.md, "Offloaded originals"). The
/// size is the length the remote copy is read as; the MD5 is what `verify` compares with
/// the remote's own hash.
package struct OffloadStub: Equatable, Sendable {
  /// The blob's length in bytes.
  package let size: Int
  /// The MD5 of the blob's bytes, 32 lowercase hex digits.
  package let md5: String

  /// A stub of longer text is not one (a size of at most 19 digits, a hash of 32, a space
  /// and a line feed).
  static let lengthLimit = 64

  /// The largest blob a record allows (an original of `PhotoRecord.byteLimit` bytes, its
  /// record and padding): a larger size is not one vault wrote, and would overflow the
  /// arithmetic of the reads that trust it.
  static let sizeLimit = BlobFormat.paddedBlobLength(
    payloadLength: Int(PhotoRecord.byteLimit) + OriginalBlob.recordSizeLimit
      + LengthPrefixedPayload.lengthSize)

  package init?(size: Int, md5: String) {
    guard (0...Self.sizeLimit).contains(size), Self.isMD5(md5) else { return nil }
    self.size = size
    self.md5 = md5
  }

  /// The stub `text` holds, if it is exactly one vault writes.
  package init?(text: [UInt8]) {
    guard text.count <= Self.lengthLimit, text.last == UInt8(ascii: "\n") else { return nil }
    let fields = text.dropLast().split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
    guard fields.count == 2, let digits = fields.first, !digits.isEmpty,
      digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
      digits.first != UInt8(ascii: "0") || digits.count == 1,
      let size = Int(String(decoding: digits, as: UTF8.self))
    else { return nil }
    self.init(size: size, md5: String(decoding: fields[1], as: UTF8.self))
  }

  /// The stub's file content.
  package var text: [UInt8] { Array("\(size) \(md5)\n".utf8) }

  private static func isMD5(_ text: String) -> Bool {
    text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }
}
