/// The order a restore brings a vault's files back in: blobs first, then keys and the
/// header, the journal last, so that a restore cut short never lists a photo it lacks.
enum RestoreGroup: CaseIterable {
  case blobs, keys, journal

  init(path: String) {
    let parts = path.split(separator: "/")
    if parts.count == 3, parts[1] == Space.photoFolder || parts[1] == Space.thumbFolder {
      self = .blobs
    } else if parts.count == 3, parts[1] == Space.journalFolder {
      self = .journal
    } else {
      self = .keys
    }
  }

  /// `paths` by group, in restore order; groups with no path left out.
  static func split(_ paths: some Sequence<String>) -> [(RestoreGroup, [String])] {
    var groups: [RestoreGroup: [String]] = [:]
    for path in paths { groups[RestoreGroup(path: path), default: []].append(path) }
    return allCases.compactMap { group in groups[group].map { (group, $0.sorted()) } }
  }
}
