/// The image and video formats vault imports, recognised by their first bytes, not their
/// names. The raw value is what a photo's record stores (docs/FORMAT.md).
public enum ImageFormat: String, Codable, Sendable, CaseIterable {
  case jpeg
  case png
  /// HEIF with HEVC-coded images: what iPhones shoot.
  case heic
  /// GIF, a still or an animation.
  case gif
  /// WebP, lossy or lossless, a still or an animation.
  case webp
  /// HEIF with AV1-coded images, a still or an image sequence.
  case avif
  /// An MP4 video (M4V too): ISO media of MP4's brands.
  case mp4
  /// A QuickTime movie: what iPhones film.
  case mov

  /// Whether the format holds a video rather than a still.
  public var isVideo: Bool { self == .mp4 || self == .mov }

  /// How people name the format.
  public var displayName: String { self == .webp ? "WebP" : rawValue.uppercased() }

  /// The formats vault imports, for messages: "JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV".
  public static func displayNames(joinedBy conjunction: String) -> String {
    let names = allCases.map(\.displayName)
    return names.dropLast().joined(separator: ", ") + " \(conjunction) " + names.last!
  }

  /// The name extensions of these formats, in lower case. A file named so whose bytes are
  /// no such image is damaged (a cloud placeholder, an error page saved as a photo), not
  /// merely another kind of file.
  public static let nameExtensions: Set<String> = [
    "jpg", "jpeg", "png", "heic", "heif", "gif", "webp", "avif", "mp4", "m4v", "mov",
  ]

  /// Whether `path`'s name ends in one of `nameExtensions`, in any case.
  public static func nameSaysPhoto(_ path: String) -> Bool {
    let name = path.split(separator: "/").last ?? ""
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
    return nameExtensions.contains(name[name.index(after: dot)...].lowercased())
  }

  /// Bytes needed to recognise every format: an ISO media file's `ftyp` box with its
  /// compatible brands (a HEIF file may say what codes its images only there).
  public static let signatureLength = 64

  /// The format whose signature starts `bytes`, or nil.
  public static func sniff(_ bytes: [UInt8]) -> ImageFormat? {
    if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
    if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return .gif }
    if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WEBP".utf8) {
      return .webp
    }
    if let brands = isoBrands(bytes) {
      // HEIF's brands (heic, avif, mif1 and the like) and MP4's and QuickTime's do not overlap.
      switch heifCodec(brands: brands) {
      case .hevc: return .heic
      case .av1: return .avif
      case nil: break
      }
      if brands[0] == quickTimeBrand { return .mov }
      if mp4Brands.contains(brands[0]) { return .mp4 }
      return nil
    }
    // A QuickTime movie older than the `ftyp` box starts with one of these atoms.
    if bytes.count >= 8, quickTimeLeadingAtoms.contains(String(decoding: bytes[4..<8], as: UTF8.self)) {
      return .mov
    }
    return nil
  }

  /// The major brand of QuickTime movies.
  private static let quickTimeBrand = "qt  "
  /// Major brands of MP4 videos: ISO's, MP4's, H.264's, Apple's M4V, 3GPP's (phones), and
  /// Sony's XAVC. Audio-only brands (`M4A `) are not videos.
  private static let mp4Brands: Set = [
    "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VH", "M4VP", "3gp4",
    "3gp5", "3gp6", "3g2a", "mmp4", "MSNV", "XAVC", "f4v ",
  ]
  private static let quickTimeLeadingAtoms: Set = ["moov", "mdat", "wide"]

  /// What codes the images of a HEIF file.
  enum HEIFCodec {
    case hevc
    /// AVIF, decoded through libavif (libheif decodes it too, but Debian's build lets dav1d
    /// print its own lines on damaged data, and leak a little memory).
    case av1
  }

  /// Brands that say the images are HEVC-coded (HEIC), and AV1-coded (AVIF).
  private static let hevcBrands: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
  private static let av1Brands: Set = ["avif", "avis"]
  /// Brands of HEIF's structure alone (an image, a sequence), whatever codes the images.
  private static let heifBrands: Set = ["mif1", "msf1"]

  /// The codec of a HEIF file from its brands (major brand first), or nil for another ISO
  /// media file (a video). A file whose major brand is only HEIF's structure is told apart
  /// by its compatible brands; with none that names a codec it is taken as HEVC, and
  /// libheif says what it cannot decode.
  static func heifCodec(brands: [String]) -> HEIFCodec? {
    guard let major = brands.first else { return nil }
    if hevcBrands.contains(major) { return .hevc }
    if av1Brands.contains(major) { return .av1 }
    guard heifBrands.contains(major) else { return nil }
    if brands.contains(where: hevcBrands.contains) { return .hevc }
    if brands.contains(where: av1Brands.contains) { return .av1 }
    return .hevc
  }

  /// The brands of an ISO media file's leading `ftyp` box, major brand first, as far as
  /// `bytes` hold them; nil when `bytes` do not start with one.
  static func isoBrands(_ bytes: [UInt8]) -> [String]? {
    guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return nil }
    let boxLength = bytes[0..<4].reduce(0) { $0 << 8 | Int($1) }
    func brand(at offset: Int) -> String { String(decoding: bytes[offset..<offset + 4], as: UTF8.self) }
    var brands = [brand(at: 8)]
    // After the major brand: a minor version (4 bytes), then compatible brands to the end.
    var offset = 16
    while offset + 4 <= min(bytes.count, boxLength) {
      brands.append(brand(at: offset))
      offset += 4
    }
    return brands
  }

  /// The name of an image format vault recognises but does not import, or nil for a file
  /// that is no image vault knows of.
  public static func unsupportedImage(_ bytes: [UInt8]) -> String? {
    if bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) {
      return "TIFF"
    }
    return nil
  }

  /// The format of a file that starts with `signature`; any other file is refused with
  /// `unsupportedFormat`, naming `path` and the image format it is, when known.
  static func recognise(_ signature: [UInt8], path: String) throws -> ImageFormat {
    if let format = sniff(signature) { return format }
    throw VaultError.unsupportedFormat(path: path, image: unsupportedImage(signature))
  }
}
