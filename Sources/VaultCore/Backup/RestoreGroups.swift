/// The order a restore brings a vault's files back in: blobs first, then the journal, then
/// the keys, and `vault.json` last, so that a restore cut short is no vault at all (nothing
/// opens it, and nothing tempts a repair of a half-restored space) rather than one that
/// lists photos it lacks.
enum RestoreGroup: CaseIterable {
  case blobs, journal, keys, header

  init(path: String) {
    let parts = path.split(separator: "/")
    if parts.count == 1 {
      self = .header
    } else if parts.count == 3, parts[1] == Space.photoFolder || parts[1] == Space.thumbFolder {
      self = .blobs
    } else if parts.count == 3, parts[1] == Space.journalFolder {
      self = .journal
    } else {
      self = .keys
    }
  }

  /// The rclone copies a whole restore makes, in order: the blobs, then the journal and the
  /// keys together (newest first, as a backup moves them in), then `vault.json`; each is one
  /// connection to the remote.
  static func phases(_ paths: some Sequence<String>) -> [(paths: [String], newestFirst: Bool)] {
    let groups = Dictionary(uniqueKeysWithValues: split(paths))
    let phases = [
      (groups[.blobs] ?? [], false), ((groups[.journal] ?? []) + (groups[.keys] ?? []), true),
      (groups[.header] ?? [], false),
    ]
    return phases.filter { !$0.0.isEmpty }.map { (paths: $0.0, newestFirst: $0.1) }
  }

  /// `paths` by group, in restore order; groups with no path left out.
  static func split(_ paths: some Sequence<String>) -> [(RestoreGroup, [String])] {
    var groups: [RestoreGroup: [String]] = [:]
    for path in paths { groups[RestoreGroup(path: path), default: []].append(path) }
    return allCases.compactMap { group in groups[group].map { (group, $0.sorted()) } }
  }
}
