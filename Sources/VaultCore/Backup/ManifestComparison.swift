/// How a file compares with its manifest entry: the size first, then the MD5 when both
/// sides have one.
enum ManifestComparison: Equatable {
  case matches
  case missing
  case sizeDiffers(found: Int64, expected: Int64)
  case hashDiffers

  init(size: Int64?, md5: String?, expected: BackupManifest.Entry) {
    guard let size else {
      self = .missing
      return
    }
    if size != expected.size {
      self = .sizeDiffers(found: size, expected: expected.size)
    } else if let md5, let wanted = expected.md5, md5 != wanted {
      self = .hashDiffers
    } else {
      self = .matches
    }
  }

  /// Why a file does not match, in a message; nil when it does.
  var reason: String? {
    switch self {
    case .matches: return nil
    case .missing: return "missing"
    case .sizeDiffers(let found, let expected): return "\(found) bytes, the backup sent \(expected)"
    case .hashDiffers: return "its MD5 differs from the one the backup sent"
    }
  }

  /// Compares the local file at `path` (read through) with `expected`.
  static func local(_ path: String, expected: BackupManifest.Entry) throws -> ManifestComparison {
    guard let (size, md5) = try FileMD5.of(path) else { return .missing }
    return ManifestComparison(size: size, md5: md5, expected: expected)
  }
}
