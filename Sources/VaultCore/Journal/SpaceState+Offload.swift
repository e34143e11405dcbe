/// The remote of the space's offloaded originals in the state: the latest `offloadRemote`
/// entry (at equal stamps, the remote whose bytes sort last), so that synced copies agree
/// whatever order they read their files in.
extension SpaceState {
  mutating func applyOffloadRemote(_ remote: String, stamp: Int64) {
    lastStamp = max(lastStamp, stamp)
    let naming = AlbumState.Naming(name: remote, stamp: stamp)
    if let existing = offloadRemoteSetting, !naming.supersedes(existing) { return }
    offloadRemoteSetting = naming
  }

  /// The remote offloaded originals are read from; nil when none was ever offloaded.
  package var offloadRemote: String? { offloadRemoteSetting?.name }

  /// The latest remote, as a snapshot keeps it.
  func compactedOffloadRemote() -> [JournalEntry] {
    offloadRemoteSetting.map { [.offloadRemote($0.name, stamp: $0.stamp)] } ?? []
  }
}
