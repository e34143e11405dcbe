import VaultCore

/// The inode numbers a mount gives what it shows, kept from one tree to the next (a reload
/// builds its tree on the numbers of the one before): a photo keeps its number wherever and
/// however often it shows, a folder its number by its path. So what the kernel holds of a
/// name (its inode, its cached pages) stays right across a reload, and only names that show
/// another photo, or nothing, need telling it (`MountTree.entriesChanged`).
struct InodeNumbers: Sendable {
  /// The root's, as FUSE has it (`FUSE_ROOT_ID`).
  static let root: UInt64 = 1
  private var folders: [String: UInt64] = ["/": root]
  private var files: [BlobID: UInt64] = [:]
  private var next: UInt64 = root + 1

  /// The number of the folder at `path` ("/Photos"), a new one the first time.
  mutating func folder(_ path: String) -> UInt64 {
    if let number = folders[path] { return number }
    defer { next += 1 }
    folders[path] = next
    return next
  }

  /// The number of the photo `id`, a new one the first time.
  mutating func file(_ id: BlobID) -> UInt64 {
    if let number = files[id] { return number }
    defer { next += 1 }
    files[id] = next
    return next
  }
}
