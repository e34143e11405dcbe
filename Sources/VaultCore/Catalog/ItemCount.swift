/// Items counted as `list` counts them (a Live Photo's still and MOV are one item), by kind:
/// what every summary says, so that `add`, `serve`, `export` and the viewer agree with the
/// list ("added 64 items (62 photos, 2 Live Photos) from 66 files").
public struct ItemCount: Equatable, Sendable {
  public var photos = 0
  public var videos = 0
  public var livePhotos = 0

  public init() {}

  /// The items of `models`.
  public init(_ models: [PhotoModel]) {
    for model in models { count(model) }
  }

  public var items: Int { photos + videos + livePhotos }

  /// Both counts together (an export's album folders).
  public static func + (lhs: ItemCount, rhs: ItemCount) -> ItemCount {
    var sum = lhs
    sum.photos += rhs.photos
    sum.videos += rhs.videos
    sum.livePhotos += rhs.livePhotos
    return sum
  }
  /// Their files: a Live Photo is two.
  public var files: Int { photos + videos + 2 * livePhotos }

  public mutating func count(_ model: PhotoModel) {
    count(model.record, hasMotion: model.motion != nil)
  }

  mutating func count(_ record: PhotoRecord, hasMotion: Bool) {
    if hasMotion {
      livePhotos += 1
    } else if record.kind == .video {
      videos += 1
    } else {
      photos += 1
    }
  }

  /// "1 photo", "2 videos", "1 Live Photo", "3 items (1 photo, 1 video, 1 Live Photo)",
  /// "0 items".
  public var description: String {
    let kinds = [
      Self.counted(photos, "photo", "photos"), Self.counted(videos, "video", "videos"),
      Self.counted(livePhotos, "Live Photo", "Live Photos"),
    ].compactMap { $0 }
    switch kinds.count {
    case 0: return "0 items"
    case 1: return kinds[0]
    default: return Self.counted(items, "item", "items")! + " (" + kinds.joined(separator: ", ") + ")"
    }
  }

  /// `description`, and how many files they are when that is another number: "1 Live Photo
  /// from 2 files" (`joiner` "from"), "1 Live Photo as 2 files" ("as").
  public func described(files fileCount: Int, _ joiner: String) -> String {
    fileCount == items ? description : description + " \(joiner) " + Self.counted(fileCount, "file", "files")!
  }

  /// "1 photo", "3 photos"; nil for none.
  static func counted(_ count: Int, _ one: String, _ many: String) -> String? {
    count == 0 ? nil : "\(count) \(count == 1 ? one : many)"
  }
}
