/// The field encodings of the decoder protocol (docs/DECODER.md): integers big-endian,
/// texts and byte strings as a 4-byte length then the bytes, optionals as a byte 0 or 1
/// then the value. Every read is bounded: a length over its limit reads as nil.
extension ByteWriter {
  package mutating func text(_ value: String) { byteString(Array(value.utf8)) }
  package mutating func byteString(_ value: [UInt8]) {
    uint32(UInt32(value.count))
    bytes(value)
  }
  package mutating func optional<Value>(_ value: Value?, _ write: (inout ByteWriter, Value) -> Void) {
    byte(value == nil ? 0 : 1)
    if let value { write(&self, value) }
  }
  package mutating func double(_ value: Double) { uint64(value.bitPattern) }
}

extension ByteReader {
  /// Text of at most `limit` bytes of valid UTF-8.
  package mutating func text(limit: Int) -> String? {
    guard let bytes = byteString(limit: limit) else { return nil }
    return String(validating: bytes, as: UTF8.self)
  }
  package mutating func byteString(limit: Int) -> [UInt8]? {
    guard let count = uint32(), Int(count) <= limit, let slice = slice(Int(count)) else { return nil }
    return Array(slice)
  }
  /// `.some(nil)` for an absent value, nil when the field is malformed.
  package mutating func optional<Value>(_ read: (inout ByteReader) -> Value?) -> Value?? {
    switch byte() {
    case 0: return .some(nil)
    case 1: return read(&self).map { .some($0) }
    default: return nil
    }
  }
  package mutating func double() -> Double? { int64().map { Double(bitPattern: UInt64(bitPattern: $0)) } }
  /// A picture's side: a uint32 of 1 to `DecoderAnalysis.sideLimit`.
  package mutating func side() -> Int? {
    guard let value = uint32(), (1...DecoderAnalysis.sideLimit).contains(Int64(value)) else { return nil }
    return Int(value)
  }
  /// An Int64 within `range`.
  package mutating func integer(in range: ClosedRange<Int64>) -> Int64? {
    guard let value = int64(), range.contains(value) else { return nil }
    return value
  }
}
