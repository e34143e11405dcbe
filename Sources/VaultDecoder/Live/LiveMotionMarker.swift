import VaultCore

/// What makes a MOV a Live Photo's motion rather than a video that merely carries Apple's
/// content identifier: a timed metadata track whose sample description (`stsd`) is a
/// `mebx` entry declaring the key `com.apple.quicktime.still-image-time` (the moment of the
/// still, in the movie's timeline). Every iPhone has written it since Live Photos began,
/// and Photos does not take a movie as a Live Photo's without it; the identifier alone is a
/// tag anyone can give any video. Read from box headers and one bounded sample description
/// per track (FFmpeg skips a metadata track's description).
enum LiveMotionMarker {
  static let stillImageTimeKey = Array("com.apple.quicktime.still-image-time".utf8)
  /// The most bytes of a sample description read.
  static let descriptionLimit = 65_536

  /// Whether the `size` bytes that `read(offset, count)` gives hold such a track.
  static func present(size: Int64, read: (Int64, Int) throws -> [UInt8]) throws -> Bool {
    var found = false
    try MP4Boxes.walk(from: 0, to: size, into: MP4Boxes.trackContainers, read: read) { box, offset in
      guard box.type == "stsd" else { return true }
      let length = Int(min(box.size - box.headerLength, Int64(descriptionLimit)))
      found = declaresStillImageTime(try read(offset + box.headerLength, length))
      return !found
    }
    return found
  }

  /// Whether a sample description's contents (version and flags, an entry count, then the
  /// entries) hold a `mebx` entry whose key table (`keys`) has a key (a box named by its
  /// local id) declaring (`keyd`) the still-image-time key in the `mdta` namespace.
  static func declaresStillImageTime(_ description: [UInt8]) -> Bool {
    let declaration = Array("mdta".utf8) + stillImageTimeKey
    // A sample entry's contents start with 6 reserved bytes and a data reference index.
    guard description.count > 8 else { return false }
    return boxes(in: description, 8..<description.count).contains { entry in
      entry.type == "mebx"
        && boxes(in: description, entry.contents.dropFirst(8)).contains { table in
          table.type == "keys"
            && boxes(in: description, table.contents).contains { key in
              boxes(in: description, key.contents).contains {
                $0.type == "keyd" && description[$0.contents].elementsEqual(declaration)
              }
            }
        }
    }
  }

  /// The boxes side by side in `range` of `bytes`, each with where its contents are.
  private static func boxes(in bytes: [UInt8], _ range: Range<Int>) -> [(type: String, contents: Range<Int>)]
  {
    guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return [] }
    var found: [(type: String, contents: Range<Int>)] = []
    let read = { (offset: Int64, count: Int) in
      Array(bytes[Int(offset)..<min(Int(offset) + count, range.upperBound)])
    }
    try? MP4Boxes.walk(from: Int64(range.lowerBound), to: Int64(range.upperBound), into: [], read: read) {
      box, offset in
      found.append((box.type, Int(offset + box.headerLength)..<Int(offset + box.size)))
      return true
    }
    return found
  }
}
