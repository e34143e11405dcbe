import VaultCore

/// The kitty graphics protocol (https://sw.kovidgoyal.net/kitty/graphics-protocol/), the few
/// commands the viewer needs: upload an image once, place any part of it on a cell
/// rectangle, delete it.
///
/// Pixels are always sent inside the escape codes themselves (direct transmission, `t=d`);
/// the other media (`t=f` a file, `t=t` a temporary file, `t=s` shared memory) would put a
/// decrypted photo's pixels where other processes can read them, so this never emits them.
/// Every command carries `q=2`: the terminal's replies would otherwise arrive as input.
enum KittyGraphics {
  /// The most base64 bytes one escape code may carry.
  static let chunkSize = 4096

  /// Uploads `image` as image `id` (1…2³²−1), replacing any image with that id, without
  /// showing it: 24-bit RGB (`f=24`) of `s`×`v` pixels, base64 in chunks of at most
  /// `chunkSize` bytes, `m=1` on every chunk but the last. The result holds the photo's
  /// pixels: wipe it once written (`FullScreenTerminal.flush` does).
  static func transmit(id: UInt32, image: RGBImage) -> [UInt8] {
    transmit(id: id, pixels: image.pixels, width: image.width, height: image.height, format: 24)
  }

  /// The same for RGBA pixels with unassociated alpha (`f=32`): a grid row, whose gutters
  /// are transparent.
  static func transmit(id: UInt32, rgba: GridRowImage) -> [UInt8] {
    transmit(id: id, pixels: rgba.pixels, width: rgba.width, height: rgba.height, format: 32)
  }

  /// What an upload's buffer holds beyond its own bytes (a placement is under 100 bytes).
  static let spareCapacity = 256

  private static func transmit(id: UInt32, pixels: [UInt8], width: Int, height: Int, format: Int) -> [UInt8] {
    precondition(id > 0, "kitty image ids start at 1")
    precondition(width > 0 && height > 0 && pixels.count == width * height * format / 8)
    let first = Array("\u{1B}_Ga=t,t=d,f=\(format),s=\(width),v=\(height),i=\(id),q=2,m=".utf8)
    let next = Array("\u{1B}_Gq=2,m=".utf8)
    let end = Array("\u{1B}\\".utf8)
    let encoded = Base64.encodedCount(pixels.count)
    let chunks = (encoded + chunkSize - 1) / chunkSize
    // A chunk's header ends with its `m` digit and `;`.
    let total = first.count + (chunks - 1) * next.count + chunks * (2 + end.count) + encoded
    // Each chunk's base64 is a slice of one encoding of all the pixels: 4096 characters are
    // exactly 3072 bytes, so only the last chunk can end in padding.
    let bytesPerChunk = chunkSize / 4 * 3
    // Room to spare for the placement and cursor move a frame appends (`KittyPictureDrawing`):
    // appended in place, the upload is never copied to a larger buffer and freed unwiped.
    return [UInt8](unsafeUninitializedCapacity: total + spareCapacity) { buffer, initialized in
      let output = UnsafeMutableRawPointer(buffer.baseAddress!)
      var offset = 0
      func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes {
          output.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
        }
        offset += bytes.count
      }
      pixels.withUnsafeBytes { pixels in
        for chunk in 0..<chunks {
          let last = chunk == chunks - 1
          put(chunk == 0 ? first : next)
          put([last ? UInt8(ascii: "0") : UInt8(ascii: "1"), UInt8(ascii: ";")])
          let start = chunk * bytesPerChunk
          let slice = UnsafeRawBufferPointer(
            rebasing: pixels[start..<min(start + bytesPerChunk, pixels.count)])
          // libsodium's NUL after the slice lands where `end` goes next (within the buffer,
          // as the spare capacity follows the last one).
          Base64.encode(slice, into: output.advanced(by: offset))
          offset += Base64.encodedCount(slice.count)
          put(end)
        }
      }
      precondition(offset == total)
      initialized = total
    }
  }

  /// Shows the `source` rectangle (in the image's pixels) of image `id`, scaled into
  /// `columns`×`rows` cells whose top-left cell is the cursor's. A placement with the same
  /// `placement` id (1…2³²−1) is replaced, so zoom and pan re-place without re-sending
  /// pixels. The cursor stays where it is (`C=1`).
  static func place(id: UInt32, placement: UInt32, source: PixelRect, columns: Int, rows: Int) -> [UInt8] {
    precondition(id > 0 && placement > 0, "kitty image and placement ids start at 1")
    return Array(
      ("\u{1B}_Ga=p,i=\(id),p=\(placement),x=\(source.x),y=\(source.y),w=\(source.width),h=\(source.height),"
        + "c=\(columns),r=\(rows),C=1,q=2\u{1B}\\").utf8)
  }

  /// Deletes image `id`, its placements and its pixels held by the terminal (`d=I`).
  static func delete(id: UInt32) -> [UInt8] {
    Array("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\".utf8)
  }

  /// Takes every placement off the screen, keeping the images' pixels for later placements
  /// (`d=a`).
  static func deletePlacements() -> [UInt8] {
    Array("\u{1B}_Ga=d,d=a,q=2\u{1B}\\".utf8)
  }

  /// Deletes every image placed on the screen, with the pixels the terminal held for them (`d=A`).
  static func deleteAll() -> [UInt8] {
    Array("\u{1B}_Ga=d,d=A,q=2\u{1B}\\".utf8)
  }
}
