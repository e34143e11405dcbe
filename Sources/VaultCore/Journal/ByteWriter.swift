/// Big-endian bytes written one field at a time.
struct ByteWriter {
  var output: [UInt8] = []

  mutating func byte(_ value: UInt8) { output.append(value) }
  mutating func bytes<C: Collection>(_ values: C) where C.Element == UInt8 {
    output.append(contentsOf: values)
  }
  mutating func uint16(_ value: UInt16) { output += [UInt8(value >> 8), UInt8(value & 0xFF)] }
  mutating func uint32(_ value: UInt32) {
    for shift in stride(from: 24, through: 0, by: -8) {
      output.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }
  mutating func uint64(_ value: UInt64) {
    for shift in stride(from: 56, through: 0, by: -8) {
      output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
    }
  }
  mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }
}
