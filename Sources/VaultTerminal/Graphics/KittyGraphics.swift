import Foundation
import VaultCore

/// The kitty graphics protocol (https://sw.kovidgoyal.net/kitty/graphics-protocol/), the few
/// commands the viewer needs: upload an image once, place any part of it on a cell
/// rectangle, delete it.
///
/// Pixels are always sent inside the escape codes themselves (direct transmission, `t=d`);
/// the other media (`t=f` a file, `t=t` a temporary file, `t=s` shared memory) would put a
/// decrypted photo's pixels where other processes can read them, so this never emits them.
/// Every command but a placement carries `q=2`: the terminal's replies would otherwise
/// arrive as input. A placement carries `q=1`: kitty answers only when it fails (it no
/// longer holds the image), and the viewer sends the image again (`KittyReply`).
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

  /// The same for a PNG of `width`×`height` pixels (`f=100`): 40% of the bytes of a photo's
  /// raw pixels. (kitty reads the size from the PNG; `s` and `v` say it to whoever reads
  /// the command.)
  static func transmit(id: UInt32, png: [UInt8], width: Int, height: Int) -> [UInt8] {
    transmit(id: id, data: png, keys: "f=100,s=\(width),v=\(height)")
  }

  /// What an upload's buffer holds beyond its own bytes (a placement is under 100 bytes).
  static let spareCapacity = 256

  private static func transmit(id: UInt32, pixels: [UInt8], width: Int, height: Int, format: Int) -> [UInt8] {
    precondition(width > 0 && height > 0 && pixels.count == width * height * format / 8)
    return transmit(id: id, data: pixels, keys: "f=\(format),s=\(width),v=\(height)")
  }

  /// Uploads `pixels` (raw or PNG, as `keys` say) as image `id`, in chunks.
  private static func transmit(id: UInt32, data pixels: [UInt8], keys: String) -> [UInt8] {
    precondition(id > 0, "kitty image ids start at 1")
    let first = Array("\u{1B}_Ga=t,t=d,\(keys),i=\(id),q=2,m=".utf8)
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
      pixels.withUnsafeBytes { pixels in
        // Every chunk but the first is as long as the one before it, so each has a place of
        // its own known in advance, and they are encoded on every core: libsodium's Base64
        // runs in constant time, several times slower than a table.
        let (firstLength, whole) = (
          first.count + 2 + chunkSize + end.count, next.count + 2 + chunkSize + end.count
        )
        let workers = min(ProcessInfo.processInfo.activeProcessorCount, max(1, chunks / 64))
        // Each worker writes only its own chunks' places, which do not overlap.
        let shared = SharedBuffers(output: output, pixels: pixels)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
          for chunk in stride(from: worker * chunks / workers, to: (worker + 1) * chunks / workers, by: 1) {
            let start = chunk == 0 ? 0 : firstLength + (chunk - 1) * whole
            writeChunk(
              chunk, of: chunks, at: shared.output.advanced(by: start), header: chunk == 0 ? first : next,
              end: end, pixels: shared.pixels, bytesPerChunk: bytesPerChunk)
          }
        }
      }
      initialized = total
    }
  }

  /// Writes chunk `chunk` of an upload at `output`: its header, its slice of the pixels in
  /// Base64, and the end of the command.
  private static func writeChunk(
    _ chunk: Int, of chunks: Int, at output: UnsafeMutableRawPointer, header: [UInt8], end: [UInt8],
    pixels: UnsafeRawBufferPointer, bytesPerChunk: Int
  ) {
    var offset = 0
    func put(_ bytes: [UInt8]) {
      bytes.withUnsafeBytes {
        output.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
      }
      offset += bytes.count
    }
    put(header)
    put([chunk == chunks - 1 ? UInt8(ascii: "0") : UInt8(ascii: "1"), UInt8(ascii: ";")])
    let start = chunk * bytesPerChunk
    let slice = UnsafeRawBufferPointer(rebasing: pixels[start..<min(start + bytesPerChunk, pixels.count)])
    // libsodium's NUL after the slice lands where `end` goes next: in this chunk's own
    // place (or the spare capacity, after the last one), never in another's.
    Base64.encode(slice, into: output.advanced(by: offset))
    offset += Base64.encodedCount(slice.count)
    put(end)
  }

  /// Shows the `source` rectangle (in the image's pixels) of image `id`, scaled into
  /// `columns`×`rows` cells whose top-left cell is the cursor's. A placement with the same
  /// `placement` id (1…2³²−1) is replaced, so zoom and pan re-place without re-sending
  /// pixels. The cursor stays where it is (`C=1`). Only a failure is answered (`q=1`), and
  /// not even that when not `answered` (`q=2`).
  static func place(
    id: UInt32, placement: UInt32, source: PixelRect, columns: Int, rows: Int, answered: Bool = true
  ) -> [UInt8] {
    precondition(id > 0 && placement > 0, "kitty image and placement ids start at 1")
    return Array(
      ("\u{1B}_Ga=p,i=\(id),p=\(placement),x=\(source.x),y=\(source.y),w=\(source.width),h=\(source.height),"
        + "c=\(columns),r=\(rows),C=1,q=\(answered ? 1 : 2)\u{1B}\\").utf8)
  }

  /// Replaces image `id` with one black pixel, placed nowhere: its pixels are freed as a
  /// deletion frees them, but nothing else is. kitty before 0.38.1 freed with any image
  /// deleted by id (`d=I`) every image then placed nowhere, those sent ahead too.
  static func blank(id: UInt32) -> [UInt8] {
    transmit(id: id, pixels: [0, 0, 0], width: 1, height: 1, format: 24)
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

/// The upload's buffer and the pixels, handed to the workers that encode its chunks: they
/// read the pixels and write disjoint parts of the buffer, and the buffer outlives them
/// (`concurrentPerform` returns when all are done).
private struct SharedBuffers: @unchecked Sendable {
  let output: UnsafeMutableRawPointer
  let pixels: UnsafeRawBufferPointer
}
