import Foundation

@testable import VaultCore

/// Pictures made at run time for tests that need big inputs.
enum TestImages {
  /// A photo-like picture: smooth gradients, soft discs and a little deterministic noise.
  static func photoLike(width: Int, height: Int, seed: UInt64 = 1) -> RGBImage {
    var generator = SeededGenerator(seed: seed)
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    let discs = (0..<6).map { _ in
      (
        Double.random(in: 0...1, using: &generator) * Double(width),
        Double.random(in: 0...1, using: &generator) * Double(height),
        Double.random(in: 0.05...0.25, using: &generator) * Double(width),
        Double.random(in: 0...255, using: &generator)
      )
    }
    for y in 0..<height {
      for x in 0..<width {
        let fx = Double(x) / Double(width)
        let fy = Double(y) / Double(height)
        var r = 40 + 160 * fx + 20 * sin(fy * 9)
        var g = 60 + 120 * fy + 25 * sin(fx * 7 + 1)
        let b = 120 + 60 * sin((fx + fy) * 5)
        for disc in discs
        where (Double(x) - disc.0) * (Double(x) - disc.0) + (Double(y) - disc.1) * (Double(y) - disc.1) < disc
          .2 * disc.2
        {
          r = r * 0.5 + disc.3 * 0.5
          g = g * 0.6 + (255 - disc.3) * 0.4
        }
        let noise = Double(Int(generator.next() % 9) - 4)
        let i = (y * width + x) * 3
        pixels[i] = UInt8(max(0, min(255, r + noise)))
        pixels[i + 1] = UInt8(max(0, min(255, g + noise)))
        pixels[i + 2] = UInt8(max(0, min(255, b + noise)))
      }
    }
    return RGBImage(width: width, height: height, pixels: pixels)
  }

  /// A busy picture like ImageMagick's `plasma:fractal` with Gaussian noise (the second
  /// photo set of Benchmarks/run): random colour fields at three scales, smoothly
  /// interpolated, plus strong per-pixel noise, so most of its energy is in the high
  /// frequencies that a less exact IDCT gets wrong first.
  static func plasmaLike(width: Int, height: Int, seed: UInt64 = 1) -> RGBImage {
    var generator = SeededGenerator(seed: seed)
    var values = [Double](repeating: 128, count: width * height * 3)
    // Each field: random colours on a grid of `cell` pixels, bilinearly interpolated.
    for (cell, amplitude) in [(max(width, height) / 4, 110.0), (48, 50.0), (6, 25.0)] {
      let columns = width / cell + 2
      let grid = (0..<(columns * (height / cell + 2) * 3)).map { _ in
        Double.random(in: -1...1, using: &generator) * amplitude
      }
      for y in 0..<height {
        let row = y / cell
        let ty = Double(y % cell) / Double(cell)
        for x in 0..<width {
          let column = x / cell
          let tx = Double(x % cell) / Double(cell)
          let corners = [
            (row * columns + column, (1 - tx) * (1 - ty)), (row * columns + column + 1, tx * (1 - ty)),
            ((row + 1) * columns + column, (1 - tx) * ty), ((row + 1) * columns + column + 1, tx * ty),
          ]
          for channel in 0..<3 {
            var sum = 0.0
            for (corner, weight) in corners { sum += grid[corner * 3 + channel] * weight }
            values[(y * width + x) * 3 + channel] += sum
          }
        }
      }
    }
    // Roughly Gaussian noise: the sum of four uniform draws.
    let pixels = values.map { value in
      let noise = (0..<4).reduce(0) { sum, _ in sum + Int(generator.next() % 21) } - 40
      return UInt8(max(0, min(255, value + Double(noise))))
    }
    return RGBImage(width: width, height: height, pixels: pixels)
  }

  /// An EXIF APP1 segment's payload holding `orientation` under `tag` with `type`, after an
  /// unrelated tag.
  static func exifSegment(
    _ orientation: UInt16, littleEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3
  ) -> [UInt8] {
    func u16(_ v: UInt16) -> [UInt8] {
      littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)]
    }
    func u32(_ v: UInt32) -> [UInt8] {
      littleEndian
        ? u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) : u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF))
    }
    var bytes = Array("Exif".utf8) + [0, 0]
    bytes += littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
    bytes += u16(42) + u32(8) + u16(2)
    bytes += u16(0x010F) + u16(2) + u32(4) + u32(0)  // an unrelated tag first
    bytes += u16(tag) + u16(type) + u32(1) + u16(orientation) + u16(0)
    bytes += u32(0)
    return bytes
  }

  /// `image` as a JPEG stored as it is, with an EXIF orientation that turns it when shown.
  static func jpeg(_ image: RGBImage, orientation: UInt16) throws -> [UInt8] {
    let jpeg = try JPEGEncoder.encode(image, quality: 90)
    let segment = exifSegment(orientation, littleEndian: false)
    let length = segment.count + 2
    // Right after the start-of-image marker.
    return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + segment + jpeg[2...]
  }

  /// An 8-bit RGB PNG, optionally Adam7-interlaced, with uncompressed (stored) deflate
  /// blocks: simple, and valid for any decoder.
  static func png(_ image: RGBImage, interlaced: Bool) -> [UInt8] {
    var scanlines: [UInt8] = []
    func appendRow(_ y: Int, columns: StrideTo<Int>) {
      scanlines.append(0)
      for x in columns {
        let i = (y * image.width + x) * 3
        scanlines.append(contentsOf: image.pixels[i..<(i + 3)])
      }
    }
    if interlaced {
      let passes = [
        (0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2),
      ]
      for (x0, y0, dx, dy) in passes where x0 < image.width {
        for y in stride(from: y0, to: image.height, by: dy) {
          appendRow(y, columns: stride(from: x0, to: image.width, by: dx))
        }
      }
    } else {
      for y in 0..<image.height { appendRow(y, columns: stride(from: 0, to: image.width, by: 1)) }
    }
    var zlib: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let count = min(65535, scanlines.count - offset)
      let final: UInt8 = offset + count == scanlines.count ? 1 : 0
      zlib += [
        final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF),
      ]
      zlib += scanlines[offset..<(offset + count)]
      offset += count
    } while offset < scanlines.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in scanlines {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    zlib += bigEndian(b << 16 | a)
    var header = bigEndian(UInt32(image.width)) + bigEndian(UInt32(image.height))
    header += [8, 2, 0, 0, interlaced ? 1 : 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header) + chunk("IDAT", zlib)
      + chunk("IEND", [])
  }

  private static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  private static func chunk(_ kind: String, _ data: [UInt8]) -> [UInt8] {
    let body = Array(kind.utf8) + data
    return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
  }

  private static let crcTable: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  private static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
  }

  /// Peak signal-to-noise ratio in dB between two pictures of the same size.
  static func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
    precondition(a.width == b.width && a.height == b.height)
    var sum = 0.0
    for (x, y) in zip(a.pixels, b.pixels) {
      let d = Double(x) - Double(y)
      sum += d * d
    }
    let mse = sum / Double(a.pixels.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
  }
}
