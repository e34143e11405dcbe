import VaultCore

/// What `vault delete` and the viewer's grid say about the photos it is about to delete, would delete
/// (`--dry-run`) or deleted: each photo by the number `vault list` shows for it with the
/// same options, and its name (as `vault list` shows it: the name its file shows under in
/// an export and the mount); and the albums the photos leave, since a photo chosen by
/// number or selection days ago may be in an album the user cares about.
public struct DeletionText {
  /// The photos, with their 0-based places in the browser's list.
  public let photos: [(index: Int, photo: PhotoModel)]
  /// The names the photos' files show under.
  public let names: ShownFileNames

  public init(photos: [(index: Int, photo: PhotoModel)], names: ShownFileNames) {
    self.photos = photos
    self.names = names
  }

  /// How many photos the question names before `… and N more`.
  public static let namedInQuestion = 10

  /// One line a photo, `limit` at most, then `… and N more` for the rest: the number
  /// right-aligned, then the name (`ShownFileNames.item`).
  public func photoLines(limit: Int? = nil) -> [String] {
    let shown = photos.prefix(limit ?? photos.count)
    let width = shown.map { String($0.index + 1).count }.max() ?? 0
    var lines = shown.map { item in
      let number = String(item.index + 1)
      return "  " + String(repeating: " ", count: width - number.count) + number + " "
        + names.item(item.photo)
    }
    let rest = photos.count - shown.count
    if rest > 0 { lines.append("  … and \(rest) more") }
    return lines
  }

  /// "albums they leave: 'Trip' (2 of its 5 photos), 'Family' (all 3 photos)", or
  /// nil when the photos are in no album. `size` gives an album's photo count.
  public func albumLine(size: (String) -> Int) -> String? {
    var leaving: [String: Int] = [:]
    for item in photos {
      for album in item.photo.albums { leaving[album, default: 0] += 1 }
    }
    guard !leaving.isEmpty else { return nil }
    let parts = leaving.keys.sorted().map { name -> String in
      let (count, total) = (leaving[name]!, max(size(name), leaving[name]!))
      let of =
        count < total
        ? "\(count) of its \(total) photos" : total == 1 ? "its only photo" : "all \(total) photos"
      return "'\(name)' (\(of))"
    }
    return (photos.count == 1 ? "album it leaves: " : "albums they leave: ") + parts.joined(separator: ", ")
  }
}
