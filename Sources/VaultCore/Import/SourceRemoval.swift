import Foundation

/// Removes the source files of an import that moves them (`vault add --move`), each only
/// once the space is known to hold it: its original was written and flushed, and the
/// journal entry listing it is durable (the caller removes nothing before its batch is
/// committed); then the stored original is read back from the disk, authenticated to its
/// last byte and its content hash checked against its record, and the source is read again
/// and must have that same hash. A duplicate's source goes once the copy already stored
/// passes the same checks. Only then is the file unlinked; its folder is synced before the
/// removal is reported (`syncFolders`).
final class SourceRemoval {
  private let space: Space
  private let hashKey: SecureBytes
  /// The space's photos by content hash, the first listed for each.
  private var stored: [String: PhotoRecord] = [:]
  /// Photos already read back by this import: a file given twice (by two paths) costs one.
  private var readBack: Set<BlobID> = []
  /// The folders of files removed since the last `syncFolders`.
  private var changedFolders: Set<String> = []

  init(space: Space) {
    self.space = space
    hashKey = space.master.contentHashKey()
    for entry in space.entries where stored[entry.record.contentHash] == nil {
      stored[entry.record.contentHash] = entry.record
    }
  }

  /// Adds photos the import has just committed.
  func noteCommitted(_ records: [PhotoRecord]) {
    for record in records where stored[record.contentHash] == nil { stored[record.contentHash] = record }
  }

  /// Removes the file at `path`, imported with `contentHash`, if every check passes;
  /// otherwise throws why it stays.
  func remove(_ path: String, contentHash: String) throws {
    guard let record = stored[contentHash] else {
      throw VaultError.io(path: path, reason: "the space does not list it")
    }
    var named = stat()
    guard lstat(path, &named) == 0 else { throw VaultError.posix(path) }
    // Removing a link would leave the photo it points to where it is, while saying it
    // was moved.
    guard (named.st_mode & S_IFMT) == S_IFREG else {
      throw VaultError.io(path: path, reason: "not a regular file (a link?); only files themselves are moved")
    }
    if !readBack.contains(record.id) {
      do {
        try readBackFromDisk(record)
      } catch let error as VaultError {
        throw VaultError.io(path: path, reason: "its copy in the space does not read back: \(error)")
      }
      readBack.insert(record.id)
    }
    let source = try SourceFile(path: path)
    var opened = stat()
    guard fstat(source.descriptor, &opened) == 0, opened.st_dev == named.st_dev,
      opened.st_ino == named.st_ino,
      try source.hash(key: hashKey, consume: { _ in }) == contentHash
    else {
      throw VaultError.io(path: path, reason: "it changed since it was imported")
    }
    guard unlink(path) == 0 else { throw VaultError.posix(path) }
    changedFolders.insert(parentFolder(path))
  }

  /// Makes the removals so far durable. A folder that cannot be synced is no loss: every
  /// removed file's photo is already durable in the space.
  func syncFolders() {
    for folder in changedFolders { try? syncDirectory(folder) }
    changedFolders.removeAll()
  }

  /// Reads the stored original from the disk (its cached pages dropped first: they were
  /// flushed, so the kernel reads what the disk holds), authenticating every chunk and the
  /// content hash.
  private func readBackFromDisk(_ record: PhotoRecord) throws {
    let path = space.photoPath(record.id)
    if let descriptor = try? openVaultFile(path) {
      _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED)
      close(descriptor)
    }
    try space.openOriginal(record).readContent { _ in }
  }
}
