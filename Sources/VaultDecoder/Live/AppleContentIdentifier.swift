import VaultCore

/// Apple's content identifier, which ties a Live Photo's still to its MOV. A MOV carries it
/// as `com.apple.quicktime.content.identifier` (`VideoProbe`); a HEIC or JPEG from an iPhone
/// in its EXIF maker note: the Exif IFD's `MakerNote` (tag 0x927C) starts "Apple iOS\0",
/// then a version (2 bytes) and a byte order mark ("MM" or "II"), then an IFD at offset 14
/// whose offsets count from the maker note's start; its tag 0x0011 is the identifier, ASCII.
/// Every offset is bounds-checked: a prefix or a forged file gives nil, never a trap.
package enum AppleContentIdentifier {
  static let makerNoteSignature: [UInt8] = Array("Apple iOS\0".utf8)
  static let exifIFDTag = 0x8769
  static let makerNoteTag = 0x927C
  static let contentIdentifierTag = 0x0011

  /// The identifier of an opened file: a video's from its container, a HEIC's or JPEG's
  /// from its EXIF (a JPEG's from `file`, its bytes when held, else the first bytes of
  /// `source`); nil for other formats, or when the file has none that a journal can keep.
  /// A video's counts only when it is a Live Photo's movie (`VideoProbe.isLiveMotion`):
  /// the tag alone, which any video may carry, would let a still with a maker note forged
  /// to match take an unrelated video as its motion.
  static func read(_ image: OpenedImage, file: PinnedBytes?, source: SourceFile?) -> String? {
    let found: String?
    switch image.decoder {
    case .video(let probe): found = probe.isLiveMotion ? probe.contentIdentifier : nil
    case .heif(let decoder): found = decoder.withExif(inTIFF)
    case .jpeg:
      if let file {
        found = inJPEG(UnsafeRawBufferPointer(start: file.baseAddress, count: file.count))
      } else if var prefix = try? source?.readPrefix(PhotoDetails.prefixLength) {
        defer { prefix.wipe() }
        found = prefix.withUnsafeBytes(inJPEG)
      } else {
        found = nil
      }
    default: found = nil
    }
    return found.flatMap { DecoderAnalysis.isRecordable(liveIdentifier: $0) ? $0 : nil }
  }

  /// The identifier in a JPEG's EXIF segment.
  static func inJPEG(_ bytes: UnsafeRawBufferPointer) -> String? {
    PhotoDetailsReader.jpegExif(bytes, inAPP1)
  }

  /// The identifier in an APP1 segment's payload ("Exif\0\0", then TIFF).
  package static func inAPP1(_ segment: UnsafeRawBufferPointer) -> String? {
    guard segment.starts(with: ExifReader.exifHeader) else { return nil }
    return inTIFF(UnsafeRawBufferPointer(rebasing: segment[ExifReader.exifHeader.count...]))
  }

  /// The identifier in an EXIF TIFF structure's Apple maker note.
  package static func inTIFF(_ tiff: UnsafeRawBufferPointer) -> String? {
    guard tiff.count >= 8 else { return nil }
    let order = IFDReader(bytes: tiff, bigEndian: tiff[0] == 0x4D)
    guard tiff[0] == tiff[1], tiff[0] == 0x4D || tiff[0] == 0x49, let ifd0 = order.u32(4),
      let exif = order.entry(tag: exifIFDTag, inIFDAt: ifd0),
      let exifIFD = order.u32(exif.valueAt),
      let note = order.entry(tag: makerNoteTag, inIFDAt: exifIFD),
      note.count >= 16, let start = order.u32(note.valueAt),
      start <= tiff.count, note.count <= tiff.count - start
    else { return nil }
    return inMakerNote(UnsafeRawBufferPointer(rebasing: tiff[start..<start + note.count]))
  }

  /// The identifier in an Apple maker note's bytes.
  package static func inMakerNote(_ note: UnsafeRawBufferPointer) -> String? {
    guard note.starts(with: makerNoteSignature), note.count >= 16 else { return nil }
    let mark = (note[12], note[13])
    guard mark == (0x4D, 0x4D) || mark == (0x49, 0x49) else { return nil }
    let reader = IFDReader(bytes: note, bigEndian: mark.0 == 0x4D)
    guard let entry = reader.entry(tag: contentIdentifierTag, inIFDAt: 14),
      entry.type == 2, entry.count > 0
    else { return nil }
    let at = entry.count <= 4 ? entry.valueAt : reader.u32(entry.valueAt)
    guard let at, at <= note.count, entry.count <= note.count - at else { return nil }
    let text = UnsafeRawBufferPointer(rebasing: note[at..<at + entry.count]).prefix { $0 != 0 }
    return String(validating: text, as: UTF8.self)
  }

  /// Integers and IFD entries of a TIFF-like structure, bounds-checked.
  private struct IFDReader {
    let bytes: UnsafeRawBufferPointer
    let bigEndian: Bool

    struct Entry {
      let type: Int
      let count: Int
      /// Where the entry's value field (4 bytes) is.
      let valueAt: Int
    }

    func u16(_ at: Int) -> Int? {
      guard at >= 0, at <= bytes.count - 2 else { return nil }
      let (a, b) = (Int(bytes[at]), Int(bytes[at + 1]))
      return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u32(_ at: Int) -> Int? {
      guard let high = u16(bigEndian ? at : at + 2), let low = u16(bigEndian ? at + 2 : at) else {
        return nil
      }
      return high << 16 | low
    }

    /// The entry with `tag` in the IFD at `offset`; the first of them, at most 512 read.
    func entry(tag: Int, inIFDAt offset: Int) -> Entry? {
      guard let count = u16(offset), count <= 512 else { return nil }
      for index in 0..<count {
        let at = offset + 2 + 12 * index
        guard let found = u16(at), let type = u16(at + 2), let length = u32(at + 4) else { return nil }
        if found == tag { return Entry(type: type, count: length, valueAt: at + 8) }
      }
      return nil
    }
  }
}
