/// Big-endian bytes written one field at a time.
package struct ByteWriter {
  package var output: [UInt8] = []

  package init(output: [UInt8] = []) { self.output = output }

  package mutating func byte(_ value: UInt8) { output.append(value) }
  package mutating func bytes<C: Collection>(_ values: C) where C.Element == UInt8 {
    output.append(contentsOf: values)
  }
  package mutating func uint16(_ value: UInt16) { output += [UInt8(value >> 8), UInt8(value & 0xFF)] }
  package mutating func uint32(_ value: UInt32) {
    for shift in stride(from: 24, through: 0, by: -8) {
      output.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
    }
  }
  package mutating func uint64(_ value: UInt64) {
    for shift in stride(from: 56, through: 0, by: -8) {
      output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
    }
  }
  package mutating func int64(_ value: Int64) { uint64(UInt64(bitPattern: value)) }
}
