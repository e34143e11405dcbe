import VaultCore

/// A HEIF file's items as its `meta` box lists them: each one's type (`iinf`) and where its
/// data lies (`iloc`: extents in the file, or in the `idat` box). ISO/IEC 14496-12, 8.11.
struct ItemTable {
  /// The type of each item (`hvc1`, `grid`, `iovl`, `Exif`…), by item id.
  private(set) var types: [Int: String] = [:]
  private var locations: [Int: Location] = [:]
  /// Where the `idat` payload lies in the `meta` payload.
  var idat: Range<Int>?

  private struct Location {
    /// 0: offsets in the file; 1: offsets in `idat`.
    var constructionMethod: Int
    var extents: [(offset: Int, length: Int)]
  }

  /// Reads `iinf`: a full box, an entry count, then `infe` boxes (version 2 and 3 carry the
  /// item type).
  mutating func readTypes(_ meta: [UInt8], _ box: BMFFBoxes.Box) {
    guard let version = meta[safe: box.payload.lowerBound] else { return }
    let start = box.payload.lowerBound + (version == 0 ? 6 : 8)
    guard start <= box.payload.upperBound else { return }
    for entry in BMFFBoxes(meta, in: start..<box.payload.upperBound) where entry.type == "infe" {
      var fields = FieldReader(meta, entry.payload)
      guard let infeVersion = fields.read(1), infeVersion >= 2, fields.read(3) != nil,
        let id = fields.read(infeVersion == 2 ? 2 : 4), fields.read(2) != nil, let type = fields.read(4)
      else { continue }
      types[id] = String(
        decoding: (0..<4).map { UInt8(truncatingIfNeeded: type >> (24 - 8 * $0)) }, as: UTF8.self)
    }
  }

  /// Reads `iloc`: field sizes, then for each item its construction method, base offset and
  /// extents.
  mutating func readLocations(_ meta: [UInt8], _ box: BMFFBoxes.Box) {
    var fields = FieldReader(meta, box.payload)
    guard let version = fields.read(1), version <= 2, fields.read(3) != nil,
      let sizes = fields.read(1), let moreSizes = fields.read(1),
      let count = fields.read(version < 2 ? 2 : 4)
    else { return }
    let (offsetSize, lengthSize, baseSize) = (sizes >> 4, sizes & 15, moreSizes >> 4)
    let indexSize = version == 0 ? 0 : moreSizes & 15
    for _ in 0..<count {
      guard let id = fields.read(version < 2 ? 2 : 4) else { return }
      var method = 0
      if version > 0 {
        guard let word = fields.read(2) else { return }
        method = word & 15
      }
      guard fields.read(2) != nil, let base = fields.read(baseSize), let extentCount = fields.read(2) else {
        return
      }
      var extents: [(offset: Int, length: Int)] = []
      for _ in 0..<extentCount {
        guard fields.read(indexSize) != nil, let offset = fields.read(offsetSize),
          let length = fields.read(lengthSize)
        else { return }
        extents.append((base + offset, length))
      }
      locations[id] = Location(constructionMethod: method, extents: extents)
    }
  }

  /// The data of item `id`, when its extents can be read (a length of 0, "to the end", is
  /// not followed: no coded picture or canvas needs it).
  func data(of id: Int, meta: [UInt8], read: @escaping HEIFPictureSizes.Read) -> ItemData? {
    guard let location = locations[id], !location.extents.contains(where: { $0.length <= 0 }) else {
      return nil
    }
    switch location.constructionMethod {
    case 0:
      return ItemData(extents: location.extents, read: read)
    case 1:
      guard let idat else { return nil }
      return ItemData(extents: location.extents) { offset, count in
        guard offset >= 0, count >= 0, offset <= idat.count - count else { return nil }
        return Array(meta[idat.lowerBound + offset..<idat.lowerBound + offset + count])
      }
    default:
      return nil
    }
  }
}

/// An item's data, its extents one after another.
struct ItemData {
  let extents: [(offset: Int, length: Int)]
  let read: HEIFPictureSizes.Read

  /// Held at 2^62 (extents are each under it, but there may be many).
  var count: Int { extents.reduce(0) { min($0 + $1.length, 1 << 62) } }

  /// `count` bytes from `position`; nil past the end.
  func bytes(at position: Int, count: Int) -> [UInt8]? {
    guard position >= 0, count >= 0 else { return nil }
    var result: [UInt8] = []
    var skip = position
    for extent in extents where result.count < count {
      if skip >= extent.length {
        skip -= extent.length
        continue
      }
      let wanted = min(count - result.count, extent.length - skip)
      let (start, overflow) = extent.offset.addingReportingOverflow(skip)
      guard !overflow, let part = read(start, wanted), part.count == wanted else { return nil }
      result += part
      skip = 0
    }
    return result.count == count ? result : nil
  }
}

/// Big-endian fields of 0 to 8 bytes, one after another in a range.
struct FieldReader {
  private let bytes: [UInt8]
  private var position: Int
  private let end: Int

  init(_ bytes: [UInt8], _ range: Range<Int>) {
    self.bytes = bytes
    position = range.lowerBound
    end = Swift.min(range.upperBound, bytes.count)
  }

  /// The next `size` bytes as a number (0 for a size of 0); nil past the end or when it
  /// does not fit in 62 bits.
  mutating func read(_ size: Int) -> Int? {
    guard size >= 0, size <= 8, position + size <= end else { return nil }
    let value = bytes[position..<position + size].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    position += size
    return value < 1 << 62 ? Int(value) : nil
  }
}

extension Array {
  fileprivate subscript(safe index: Int) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}
