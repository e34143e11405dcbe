import VaultCore

/// The sizes of the pictures libheif allocates when it decodes a HEIF file, read from the
/// file's own boxes and codec headers rather than from its `ispe` boxes: an `ispe` is only
/// what the file says, while libheif allocates what the HEVC sequence parameter set (SPS)
/// codes and what a `grid` or `iovl` item declares as its canvas. An 833-byte file whose
/// `ispe` said 48x32 and whose SPS said 16384x16384 once took 1.7 GB to decode.
///
/// ISO/IEC 14496-12 (boxes: `meta`, `iinf`/`infe`, `iloc`, `idat`, `iprp`/`ipco`, `hvcC`),
/// ISO/IEC 23008-12 (`grid`, `iovl`), ISO/IEC 14496-15 (`hvcC`, length-prefixed NAL units)
/// and ITU-T H.265 7.3.2.2 (the SPS). What cannot be read is left out: libheif refuses it too.
struct HEIFPictureSizes {
  /// The most pixels one coded HEVC picture declares (an SPS in any `hvcC` box or in the
  /// data of any `hvc1` item).
  private(set) var largestCodedPicture = 0
  /// The most pixels a `grid` or `iovl` item's canvas declares; 0 when the file has none.
  private(set) var largestCanvas = 0
  /// Whether an item is AV1-coded: libheif would decode it, with sizes not read here.
  private(set) var hasAV1Pictures = false
  /// Why the sizes could not all be read, when they could not: the boxes or NAL units are
  /// cut short, out of bounds or too many, or an SPS does not parse. libheif may still
  /// decode such a file, skipping what stopped this walk (a zero-length NAL unit before
  /// a large SPS did), so it is refused rather than sized from what was read.
  private(set) var unreadable: String?
  /// NAL units looked at, over every item: a photo has a few a tile; a file that makes
  /// this walk long is not a photo.
  private var nalUnitsLeft = 1 << 16

  /// Reads `count` bytes at `offset` of the file; nil past its end.
  typealias Read = (_ offset: Int, _ count: Int) -> [UInt8]?

  /// The most bytes of `meta` read: a phone's is a few KiB, a 48-megapixel photo's tiles
  /// and their locations some tens.
  static let metaSizeLimit = 4 << 20

  init(length: Int, read: @escaping Read) {
    guard let meta = Self.metaBox(length: length, read: read) else {
      unreadable = "its meta box is missing or larger than \(Self.metaSizeLimit >> 20) MiB"
      return
    }
    var items = ItemTable()
    for box in BMFFBoxes(meta, from: 4) {
      switch box.type {
      case "iinf": items.readTypes(meta, box)
      case "iloc": items.readLocations(meta, box)
      case "idat": items.idat = box.payload
      case "iprp":
        for ipco in BMFFBoxes(meta, in: box.payload) where ipco.type == "ipco" {
          for property in BMFFBoxes(meta, in: ipco.payload) where property.type == "hvcC" {
            notePictures(inConfiguration: Array(meta[property.payload]))
          }
        }
      default: continue
      }
    }
    for (id, type) in items.types {
      if type == "av01" { hasAV1Pictures = true }
      guard let data = items.data(of: id, meta: meta, read: read) else {
        if Self.sizedTypes.contains(type) { unreadable = "the data of a \(type) item cannot be located" }
        continue
      }
      switch type {
      case "hvc1": notePictures(inNALUnits: data)
      case "grid", "iovl": largestCanvas = max(largestCanvas, Self.canvasPixels(type: type, data) ?? 0)
      default: continue
      }
    }
  }

  /// The payload of the top-level `meta` box, if it is small enough to read.
  private static func metaBox(length: Int, read: Read) -> [UInt8]? {
    var offset = 0
    while offset + 8 <= length, let head = read(offset, min(16, length - offset)) {
      guard let box = BMFFBoxes.header(head, at: 0, end: length - offset) else { return nil }
      if box.type == "meta" {
        let size = box.payload.count
        guard size <= metaSizeLimit else { return nil }
        return read(offset + box.payload.lowerBound, size)
      }
      offset += box.payload.upperBound
    }
    return nil
  }

  /// An `hvcC` record: 22 bytes, then arrays of NAL units, each with a 16-bit length.
  private mutating func notePictures(inConfiguration record: [UInt8]) {
    guard record.count > 22 else { return }
    var position = 23
    for _ in 0..<record[22] {
      guard position + 3 <= record.count else { return }
      let count = Int(record[position + 1]) << 8 | Int(record[position + 2])
      position += 3
      for _ in 0..<count {
        guard position + 2 <= record.count else { return }
        let length = Int(record[position]) << 8 | Int(record[position + 1])
        position += 2
        guard position + length <= record.count else { return }
        noteSPS(record[position..<position + length])
        position += length
      }
    }
  }

  /// An item's coded data: NAL units, each after a 4-byte length (what libheif writes and
  /// reads; an SPS here reaches the decoder as one in `hvcC` does).
  private mutating func notePictures(inNALUnits data: ItemData) {
    var position = 0
    while position < data.count {
      guard nalUnitsLeft > 0 else {
        unreadable = "it has more NAL units than a photo"
        return
      }
      nalUnitsLeft -= 1
      guard let length = data.bytes(at: position, count: 4).map(Self.bigEndian), length > 0,
        length <= data.count - position - 4
      else {
        unreadable = "a NAL unit's length is zero or runs past its item's data"
        return
      }
      if let header = data.bytes(at: position + 4, count: 2), header[0] >> 1 & 0x3F == Self.spsType,
        // An SPS's size fields come within its first few dozen bytes.
        let nal = data.bytes(at: position + 4, count: min(length, 256, data.count - position - 4))
      {
        noteSPS(nal[...])
      }
      position += 4 + length
    }
  }

  private static let spsType: UInt8 = 33
  /// The item types whose data says what libheif allocates.
  private static let sizedTypes: Set = ["hvc1", "grid", "iovl"]

  private mutating func noteSPS(_ nal: ArraySlice<UInt8>) {
    guard let first = nal.first, first >> 1 & 0x3F == Self.spsType else { return }
    guard let size = HEVCSequenceParameters.pictureSize(nal.dropFirst(2)) else {
      unreadable = "a sequence parameter set does not parse"
      return
    }
    largestCodedPicture = max(largestCodedPicture, Self.area(size.width, size.height))
  }

  /// A `grid` (version, flags, rows, columns, width, height) or an `iovl` (version, flags,
  /// four 16-bit fill values, width, height); sizes are 32 bits when the flags' bit 0 is set.
  static func canvasPixels(type: String, _ data: ItemData) -> Int? {
    guard let flags = data.bytes(at: 1, count: 1)?[0] else { return nil }
    let fieldSize = flags & 1 == 0 ? 2 : 4
    let start = type == "grid" ? 4 : 10
    guard let sizes = data.bytes(at: start, count: 2 * fieldSize) else { return nil }
    return area(bigEndian(sizes[0..<fieldSize]), bigEndian(sizes[fieldSize...]))
  }

  /// `width * height`, held at 2^40 (a terabyte of pixels) so that what is computed from
  /// it (bytes a pixel) cannot overflow.
  static func area(_ width: Int, _ height: Int) -> Int {
    let limit = 1 << 40
    let (product, overflow) = min(width, limit).multipliedReportingOverflow(by: min(height, limit))
    return overflow ? limit : min(product, limit)
  }

  static func bigEndian<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int {
    bytes.reduce(0) { $0 << 8 | Int($1) }
  }
}

/// The picture size an HEVC SPS declares (H.265 7.3.2.2), read up to those fields.
enum HEVCSequenceParameters {
  /// `rbsp` is the SPS after its 2-byte NAL header, emulation prevention bytes included.
  static func pictureSize(_ nal: ArraySlice<UInt8>) -> (width: Int, height: Int)? {
    var bits = RBSPBits(nal)
    bits.skip(4)  // sps_video_parameter_set_id
    guard let subLayers = bits.read(3) else { return nil }
    bits.skip(1 + 88 + 8)  // temporal id nesting, the general profile, its level
    // profile_tier_level: which sub-layers carry a profile and a level, then those.
    var present: [(profile: Bool, level: Bool)] = []
    for _ in 0..<subLayers {
      guard let profile = bits.read(1), let level = bits.read(1) else { return nil }
      present.append((profile == 1, level == 1))
    }
    if subLayers > 0 { bits.skip(2 * (8 - subLayers)) }
    for layer in present {
      if layer.profile { bits.skip(88) }
      if layer.level { bits.skip(8) }
    }
    guard bits.readExpGolomb() != nil, let chroma = bits.readExpGolomb() else { return nil }
    if chroma == 3 { bits.skip(1) }
    guard let width = bits.readExpGolomb(), let height = bits.readExpGolomb() else { return nil }
    return (width, height)
  }
}

/// Bits of a NAL unit's payload, most significant first, with the emulation prevention
/// bytes (a 3 after two zero bytes) taken out.
struct RBSPBits {
  private var bytes: [UInt8] = []
  private var position = 0

  init(_ nal: ArraySlice<UInt8>) {
    var zeros = 0
    for byte in nal {
      if zeros >= 2 && byte == 3 {
        zeros = 0
        continue
      }
      bytes.append(byte)
      zeros = byte == 0 ? zeros + 1 : 0
    }
  }

  mutating func skip(_ count: Int) {
    position += count
  }

  /// The next `count` (at most 32) bits; nil past the end.
  mutating func read(_ count: Int) -> Int? {
    guard position + count <= bytes.count * 8 else { return nil }
    var value = 0
    for _ in 0..<count {
      value = value << 1 | Int(bytes[position >> 3] >> (7 - UInt8(position & 7)) & 1)
      position += 1
    }
    return value
  }

  /// An unsigned Exp-Golomb value, ue(v); nil past the end or beyond 32 bits.
  mutating func readExpGolomb() -> Int? {
    var zeros = 0
    while true {
      guard let bit = read(1) else { return nil }
      if bit == 1 { break }
      zeros += 1
      if zeros > 32 { return nil }
    }
    guard let rest = read(zeros) else { return nil }
    return (1 << zeros) - 1 + rest
  }
}
