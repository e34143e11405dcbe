import CHeif
import Foundation
import VaultCore

/// A HEIC file opened through libheif, for its primary image: the one a
/// file of several images is shown as. libheif decodes an image only whole, applying the
/// file's own transformations (irot rotation, imir mirror, clap crop), so what it gives is
/// already as shown. An EXIF orientation in the file is never applied on top: iPhones write
/// one beside irot, for readers that know only EXIF, and applying both turns twice.
final class HEIFDecoder {
  private let context: OpaquePointer
  private let handle: OpaquePointer
  /// Names the picture in errors.
  let path: String
  /// What libheif reads until the context is freed: bytes in memory or an open file.
  private let input: AnyObject
  /// The size as shown (after the transformations), from the file's boxes.
  let width: Int
  let height: Int
  let hasAlpha: Bool
  private let isPremultiplied: Bool
  /// Bits per sample of the coded picture (8 for most photos, 10 for some HDR ones).
  private let bitDepth: Int
  /// The most pixels libheif holds at once: the coded picture's (its SPS, not only its ispe
  /// box, which a hostile file sets apart), a grid's canvas with the tiles in flight.
  private let codedPixels: Int
  private let compressedBytes: Int

  /// libheif's plugins are registered once per process.
  private static let initialized: Void = { _ = heif_init(nil) }()

  /// Registers libheif's plugins now (the decoder helper, before its sandbox forbids
  /// opening their folder).
  static func initializeLibrary() { initialized }

  /// Decodes a HEIF file held in memory, without copying it; `name` stands for it in errors.
  convenience init(pinned: PinnedBytes, name: String) throws {
    let bytes = UnsafeRawBufferPointer(start: pinned.baseAddress, count: pinned.count)
    try self.init(path: name, input: pinned, length: pinned.count) { context in
      heif_context_read_from_memory_without_copy(context, pinned.baseAddress, pinned.count, nil)
    } bytesAt: { offset, count in
      guard offset >= 0, count >= 0, offset <= bytes.count - count else { return nil }
      return Array(bytes[offset..<offset + count])
    }
  }

  /// Decodes a file through its one open descriptor.
  convenience init(file: SourceFile) throws {
    let reader = HEIFFileReader(file: file)
    try self.init(path: file.path, input: reader, length: Int(file.size)) { context in
      heif_context_read_from_reader(
        context, reader.functions, Unmanaged.passUnretained(reader).toOpaque(), nil)
    } bytesAt: { offset, count in
      reader.bytes(at: offset, count: count)
    }
  }

  private init(
    path: String, input: AnyObject, length: Int, read: (OpaquePointer) -> heif_error,
    bytesAt: @escaping HEIFPictureSizes.Read
  ) throws {
    Self.initialized
    self.path = path
    self.input = input
    compressedBytes = length
    guard let context = heif_context_alloc() else {
      throw VaultError.decodeFailed(path: path, reason: "out of memory")
    }
    heif_context_set_max_decoding_threads(context, Int32(Self.decodingThreads))
    var handle: OpaquePointer?
    var error = read(context)
    if error.code == heif_error_Ok { error = heif_context_get_primary_image_handle(context, &handle) }
    guard error.code == heif_error_Ok, let handle else {
      // The message lives in the context.
      let reason = Self.reason(error)
      heif_context_free(context)
      throw VaultError.decodeFailed(path: path, reason: reason)
    }
    // Checked before the context is ours to free in `deinit` (a class that throws before its
    // properties are all set is not deinitialised: the context would leak).
    let pictures = HEIFPictureSizes(length: length, read: bytesAt)
    if let refusal = Self.refusal(of: pictures) {
      heif_image_handle_release(handle)
      heif_context_free(context)
      throw VaultError.decodeFailed(path: path, reason: refusal)
    }
    self.context = context
    self.handle = handle
    width = Int(heif_image_handle_get_width(handle))
    height = Int(heif_image_handle_get_height(handle))
    hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0
    isPremultiplied = heif_image_handle_is_premultiplied_alpha(handle) != 0
    bitDepth = max(8, Int(heif_image_handle_get_luma_bits_per_pixel(handle)))
    codedPixels = max(
      width * height,
      Int(heif_image_handle_get_ispe_width(handle)) * Int(heif_image_handle_get_ispe_height(handle)),
      pictures.largestCanvas,
      pictures.largestCodedPicture * (pictures.largestCanvas > 0 ? Self.decodingThreads : 1))
  }

  /// Why a file whose pictures are `pictures` is not decoded here, if it is not.
  private static func refusal(of pictures: HEIFPictureSizes) -> String? {
    if pictures.hasAV1Pictures { return "its pictures are AV1-coded (AVIF), not HEVC" }
    if let unreadable = pictures.unreadable { return "its picture sizes cannot be read: \(unreadable)" }
    return nil
  }

  /// How many tiles of a grid libheif decodes at once.
  static let decodingThreads = 4

  deinit {
    heif_image_handle_release(handle)
    heif_context_free(context)
  }

  /// The most memory decoding the image takes, known from its header: libheif holds the
  /// coded picture as the codec gives it and as libheif copies it, then converts it to
  /// RGB, and keeps the compressed data it reads. Measured peaks (maximum resident size,
  /// libheif 1.15 with libde265): 9.2 bytes a pixel for an 8-bit HEVC picture, 6.1 for an
  /// iPhone's grid of tiles, 11.2 with alpha, 13.4 at 10 bits, 7.6 for AV1.
  var decodingBytes: Int {
    let sampleBytes = bitDepth > 8 ? 2 : 1
    let perPixel = 6 + 4 * sampleBytes + (hasAlpha ? 3 * sampleBytes : 0)
    return codedPixels * perPixel + 2 * compressedBytes
  }

  /// Decodes the primary image whole, as shown, 8 bits a sample; with alpha when it has one.
  func decode() throws -> HEIFPixels {
    guard let options = heif_decoding_options_alloc() else {
      throw VaultError.decodeFailed(path: path, reason: "out of memory")
    }
    defer { heif_decoding_options_free(options) }
    options.pointee.convert_hdr_to_8bit = 1
    var image: OpaquePointer?
    let error = heif_decode_image(
      handle, &image, heif_colorspace_RGB,
      hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
      options)
    guard error.code == heif_error_Ok, let image else {
      throw VaultError.decodeFailed(path: path, reason: Self.reason(error))
    }
    let pixels = HEIFPixels(image: image, channels: hasAlpha ? 4 : 3, isPremultiplied: isPremultiplied)
    guard pixels.width > 0, pixels.height > 0, pixels.stride >= pixels.width * pixels.channels else {
      throw VaultError.decodeFailed(path: path, reason: "image has no pixels")
    }
    // Transformations never enlarge a picture: a larger one is not what the boxes declare,
    // and what its memory was counted for.
    guard pixels.width * pixels.height <= codedPixels else {
      throw VaultError.decodeFailed(path: path, reason: "the picture is larger than its header says")
    }
    return pixels
  }

  /// The most bytes of an `Exif` item read: a camera's is a few KiB (JPEG caps its APP1
  /// at 64 KiB); a larger one is a hostile file's, and not allocated.
  static let exifSizeLimit = 1 << 20

  /// The date taken and camera from the primary image's first `Exif` item (`withExif`).
  func details() -> PhotoDetails {
    withExif { ExifReader(tiff: $0)?.details } ?? PhotoDetails()
  }

  /// What `read` makes of the TIFF structure of the primary image's first `Exif` item, nil
  /// when there is none. Its data starts with a 4-byte big-endian offset from there to the
  /// TIFF header (ISO/IEC 23008-12, A.2.1); an "Exif\0\0" often sits in between.
  func withExif<Value>(_ read: (UnsafeRawBufferPointer) -> Value?) -> Value? {
    var id = heif_item_id()
    guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else {
      return nil
    }
    let size = heif_image_handle_get_metadata_size(handle, id)
    guard size >= 4, size <= Self.exifSizeLimit else { return nil }
    var data = [UInt8](repeating: 0, count: size)
    guard heif_image_handle_get_metadata(handle, id, &data).code == heif_error_Ok else {
      return nil
    }
    return data.withUnsafeBytes { bytes in
      let offset = (0..<4).reduce(0) { $0 << 8 | Int(bytes[$1]) }
      guard offset <= size - 4 else { return nil }
      var tiff = UnsafeRawBufferPointer(rebasing: bytes[(4 + offset)...])
      if tiff.starts(with: ExifReader.exifHeader) {
        tiff = UnsafeRawBufferPointer(rebasing: tiff[ExifReader.exifHeader.count...])
      }
      return read(tiff)
    }
  }

  /// libheif's message, which names the category and the detail ("Invalid input: ...").
  private static func reason(_ error: heif_error) -> String {
    guard let message = error.message, message.pointee != 0 else {
      return "libheif error \(error.code.rawValue)"
    }
    return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// A picture libheif decoded: interleaved 8-bit RGB or RGBA rows. It may be a decrypted
/// photo's, so it is wiped before libheif frees it.
final class HEIFPixels {
  private let image: OpaquePointer
  private let base: UnsafeMutablePointer<UInt8>?
  let width: Int
  let height: Int
  let stride: Int
  /// 3 (RGB) or 4 (RGBA).
  let channels: Int
  /// Whether the colours are already multiplied by alpha.
  let isPremultiplied: Bool

  fileprivate init(image: OpaquePointer, channels: Int, isPremultiplied: Bool) {
    self.image = image
    self.channels = channels
    self.isPremultiplied = isPremultiplied
    var stride: Int32 = 0
    base = heif_image_get_plane(image, heif_channel_interleaved, &stride)
    self.stride = base == nil ? 0 : Int(stride)
    width = Int(heif_image_get_width(image, heif_channel_interleaved))
    height = Int(heif_image_get_height(image, heif_channel_interleaved))
  }

  deinit {
    if let base, height > 0 { Sodium.zero(base, count: stride * height) }
    heif_image_release(image)
  }

  /// Row `y` (0 at the top), `width * channels` bytes.
  func row(_ y: Int) -> UnsafePointer<UInt8> {
    precondition(y >= 0 && y < height)
    return UnsafePointer(base! + y * stride)
  }
}

/// Lets libheif read a file through its descriptor (pread at libheif's position), so that
/// the file is never opened again by name.
private final class HEIFFileReader {
  let file: SourceFile
  var position: Int64 = 0
  /// libheif keeps a pointer to the functions for as long as the context lives.
  let functions: UnsafeMutablePointer<heif_reader>

  init(file: SourceFile) {
    self.file = file
    functions = .allocate(capacity: 1)
    functions.initialize(
      to: heif_reader(
        reader_api_version: 1,
        get_position: { userdata in HEIFFileReader.from(userdata).position },
        read: { data, size, userdata in HEIFFileReader.from(userdata).read(into: data, count: size) },
        seek: { position, userdata in
          let reader = HEIFFileReader.from(userdata)
          guard position >= 0, position <= reader.file.size else { return -1 }
          reader.position = position
          return 0
        },
        wait_for_file_size: { target, userdata in
          target <= HEIFFileReader.from(userdata).file.size
            ? heif_reader_grow_status_size_reached : heif_reader_grow_status_size_beyond_eof
        }))
  }

  deinit {
    functions.deinitialize(count: 1)
    functions.deallocate()
  }

  static func from(_ userdata: UnsafeMutableRawPointer?) -> HEIFFileReader {
    Unmanaged<HEIFFileReader>.fromOpaque(userdata!).takeUnretainedValue()
  }

  /// `count` bytes at `offset`, for the sizes read before decoding; nil past the end.
  func bytes(at offset: Int, count: Int) -> [UInt8]? {
    guard offset >= 0, count >= 0, offset <= Int(file.size) - count else { return nil }
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let got = bytes.withUnsafeMutableBytes {
        pread(file.descriptor, $0.baseAddress! + done, count - done, off_t(offset + done))
      }
      if got < 0 && errno == EINTR { continue }
      if got <= 0 { return nil }
      done += got
    }
    return bytes
  }

  /// Reads exactly `count` bytes at the position; 0 on success, as libheif wants.
  private func read(into data: UnsafeMutableRawPointer?, count: Int) -> Int32 {
    guard let data else { return count == 0 ? 0 : -1 }
    var done = 0
    while done < count {
      let got = pread(file.descriptor, data + done, count - done, off_t(position) + off_t(done))
      if got < 0 && errno == EINTR { continue }
      if got <= 0 { return -1 }
      done += got
    }
    position += Int64(count)
    return 0
  }
}
