import VaultCore

/// How many samples the tracks of an MP4 or QuickTime file declare (their `stsz` or `stz2`
/// boxes), read from box headers before FFmpeg opens it. FFmpeg's demuxer indexes every
/// sample of every track while it reads the header, before any check of ours: a 24 KB file
/// whose 40 tracks each claimed 2,000,000 samples of one size took 3.8 GB (a security
/// review). Only box headers and the counts are read, a bounded number of boxes.
enum MP4SampleCount {
  /// What FFmpeg holds for each sample it indexes (its index entry, the sizes and the times
  /// it expands from the tables), rounded up.
  static let indexBytesPerSample: Int64 = 64

  /// The samples declared in the `size` bytes that `read(offset, count)` gives (fewer than
  /// `count` at the end).
  static func declared(size: Int64, read: (Int64, Int) throws -> [UInt8]) throws -> Int64 {
    var total: Int64 = 0
    try MP4Boxes.walk(from: 0, to: size, into: MP4Boxes.trackContainers, read: read) { box, offset in
      if box.type == "stsz" || box.type == "stz2" {
        // Version and flags, a sample size (or a field size), then the count.
        let fields = try read(offset + box.headerLength, 12)
        if fields.count == 12 { total += Int64(MP4Boxes.bigEndian(fields, at: 8)) }
      }
      return true
    }
    return total
  }
}
