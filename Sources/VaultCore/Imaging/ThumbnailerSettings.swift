/// Makes thumbnails: long side `longSide` pixels (never enlarged), area-averaged, EXIF
/// orientation (HEIF's own transformations for HEIC) applied, transparency
/// composited over a neutral gray, JPEG-encoded.
public struct Thumbnailer: Sendable {
  public var longSide = 512
  public var quality = 80
  /// Images declaring more pixels than this are refused before anything is allocated.
  public var pixelLimit = 200_000_000
  /// Animations whose frames come to more pixels than this, all counted at the size of
  /// their canvas, are refused from their header: only the first frame is decoded on
  /// import, but playing one must not take minutes.
  public var animationPixelLimit = 1_000_000_000
  /// Interlaced PNGs up to this many pixels are assembled whole (4 bytes a pixel).
  public var wholeInterlacedPixelLimit = 4_000_000
  /// How long reading one video's header, and then decoding its thumbnail's pictures, may
  /// take each (seconds): a file built to make FFmpeg spin is stopped there.
  public var videoTimeLimit = 60.0
  /// Videos whose header claims a longer duration (seconds) are refused: three days.
  public var videoDurationLimit = 72.0 * 3600
  /// The gray that transparent pixels are composited over.
  public var background: UInt8 = 128

  public init() {}

  /// The most memory one photo's decoding may take (its whole-image buffers, rows and
  /// resampling sums, estimated from the header); a photo that would need more is refused
  /// before decoding. 256 MiB decodes any 12-megapixel JPEG, progressive ones included.
  public var memoryLimit = 256 << 20

  /// What a decode needs besides what grows with the picture: the decoders' own state
  /// and saved markers, zlib's window, the thumbnail and its JPEG encoding.
  package static let fixedMemory = 4 << 20

  /// Refuses, naming `path`, a decode that would take more than `memoryLimit`.
  package func checkMemory(path: String, bytes: Int) throws {
    if bytes > memoryLimit { throw VaultError.tooMuchMemory(path: path, bytes: bytes, limit: memoryLimit) }
  }
}
