import CVaultImaging
import Dispatch
import Foundation
import Synchronization

/// Encodes pictures as PNG, quickly rather than small (one filter, zlib's fastest level
/// with run-length matching, bands of rows deflated on every core at once): for kitty,
/// which takes PNG (`f=100`) and so is sent half the bytes of a photo's raw pixels.
public enum PNGEncoder {
  /// The filter every row gets. For a photo shrunk to the screen, `average` predicts its
  /// noise best: 1.24 bytes a pixel against `sub`'s 1.31 (1.42 against 1.55 for a busier
  /// one), in the same time (Paeth 1.31, Up 1.31; zlib level 1 without run-length matching
  /// 1.47 and slower). For flat areas and text (the grid), `sub` is smaller: 0.55 bytes a
  /// pixel against 0.71.
  public enum Filter {
    case sub, average
  }

  /// The fewest rows a band has: below it, a thread costs more than it saves.
  static let bandRows = 64

  /// The PNG of 8-bit pixels, `channels` (3: RGB, 4: RGBA) a pixel, rows packed; nil when
  /// zlib fails. The result holds what the pixels compressed to: wipe it once used.
  /// `bands`: how many bands of rows are deflated at once (unless said, one a core, each
  /// of at least `bandRows` rows).
  public static func encode(
    _ pixels: [UInt8], width: Int, height: Int, channels: Int, filter: Filter = .sub, bands: Int? = nil
  ) -> [UInt8]? {
    precondition(width > 0 && height > 0 && (channels == 3 || channels == 4))
    precondition(pixels.count == width * height * channels)
    let count = max(
      1, bands.map { min($0, height) } ?? min(ProcessInfo.processInfo.activeProcessorCount, height / bandRows)
    )
    let firstRows = (0...count).map { $0 * height / count }
    let capacities = (0..<count).map {
      vault_png_band_capacity(UInt32(width), UInt32(firstRows[$0 + 1] - firstRows[$0]), Int32(channels))
    }
    let offsets = capacities.reduce(into: [0]) { $0.append($0.last! + $1) }
    // Each band is deflated into its own part of one scratch buffer, wiped once copied.
    var scratch = [UInt8](repeating: 0, count: offsets.last!)
    defer { scratch.wipe() }
    let deflated = Mutex([(length: Int, adler: UInt32)?](repeating: nil, count: count))
    let rowFilter = filter == .sub ? VAULT_PNG_FILTER_SUB : VAULT_PNG_FILTER_AVERAGE
    pixels.withUnsafeBufferPointer { source in
      scratch.withUnsafeMutableBufferPointer { target in
        // The bands write disjoint parts of the buffer, and concurrentPerform returns only
        // once they are all done: the buffers outlive the threads.
        nonisolated(unsafe) let (source, target) = (source, target)
        DispatchQueue.concurrentPerform(iterations: count) { band in
          var adler: UInt32 = 0
          let length = vault_png_deflate_band(
            source.baseAddress, UInt32(width), UInt32(height), Int32(channels),
            rowFilter, UInt32(firstRows[band]),
            UInt32(firstRows[band + 1]), target.baseAddress! + offsets[band], capacities[band], &adler)
          deflated.withLock { $0[band] = length >= 0 ? (Int(length), adler) : nil }
        }
      }
    }
    let bandResults = deflated.withLock { $0 }
    guard bandResults.allSatisfy({ $0 != nil }) else { return nil }
    // The zlib checksum is of the filtered rows: each row its filter byte and its pixels.
    let filtered = (0..<count).map { (firstRows[$0 + 1] - firstRows[$0]) * (1 + width * channels) }
    let adler = (1..<count).reduce(bandResults[0]!.adler) {
      vault_png_adler_combine($0, bandResults[$1]!.adler, filtered[$1])
    }
    return joined(
      scratch, bands: bandResults.map { $0!.length }, at: offsets, adler: adler, width: width, height: height,
      channels: channels)
  }

  /// The PNG: its head, the bands one after another, its tail. Written into a buffer of
  /// exactly its size: never grown, so never copied and freed unwiped.
  private static func joined(
    _ scratch: [UInt8], bands lengths: [Int], at offsets: [Int], adler: UInt32, width: Int, height: Int,
    channels: Int
  ) -> [UInt8] {
    let deflatedLength = lengths.reduce(0, +)
    let head = vault_png_head_length()
    let total = head + deflatedLength + vault_png_tail_length()
    return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
      let png = buffer.baseAddress!
      vault_png_write_head(UInt32(width), UInt32(height), Int32(channels), deflatedLength, png)
      var offset = head
      scratch.withUnsafeBufferPointer { scratch in
        for (band, length) in lengths.enumerated() {
          (png + offset).update(from: scratch.baseAddress! + offsets[band], count: length)
          offset += length
        }
      }
      vault_png_write_tail(png, deflatedLength, adler)
      initialized = total
    }
  }

  /// An RGB picture's PNG (see `encode`).
  public static func encode(_ image: RGBImage) -> [UInt8]? {
    encode(image.pixels, width: image.width, height: image.height, channels: 3)
  }
}
