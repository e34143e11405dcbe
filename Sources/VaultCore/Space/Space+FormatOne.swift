import Foundation

// Format 1: one index blob, rewritten whole by every change, and its upgrade to format 2's journal.
extension Space {
  static func readIndex(in directory: String, master: MasterKey) throws -> SpaceIndex {
    let path = directory + "/" + indexFile
    let key = master.blobKey(kind: .index, id: .index)
    var bytes: [UInt8]
    do {
      let reader = try BlobReader(path: path, kind: .index, key: key, what: "the index")
      bytes = try reader.readToEnd(limit: indexSizeLimit)
    } catch VaultError.damagedBlob(_, let reason) {
      throw VaultError.damagedIndex(path: path, reason: reason)
    }
    defer { bytes.wipe() }
    do {
      // Decoded in place, without a copy that would outlive the wipe.
      let index = try bytes.withUnsafeMutableBytes { buffer in
        try JSONDecoder().decode(
          SpaceIndex.self,
          from: Data(bytesNoCopy: buffer.baseAddress!, count: buffer.count, deallocator: .none))
      }
      guard index.version == SpaceIndex.currentVersion else {
        throw VaultError.damagedIndex(path: path, reason: "unsupported index version \(index.version)")
      }
      for (position, entry) in index.photos.enumerated() {
        if let problem = entry.record.outOfRange {
          throw VaultError.damagedIndex(path: path, reason: "entry \(position + 1): \(problem)")
        }
      }
      return index
    } catch let error as VaultError {
      throw error
    } catch DecodingError.dataCorrupted(let context)
      where context.debugDescription == BlobID.malformedDescription
    {
      throw VaultError.damagedIndex(path: path, reason: Self.describeMalformedID(at: context.codingPath))
    } catch {
      throw VaultError.damagedIndex(path: path, reason: "its contents do not parse")
    }
  }

  /// "entry 2 has a malformed photo id", from where in the index the decoder met it.
  private static func describeMalformedID(at codingPath: [CodingKey]) -> String {
    guard let position = codingPath.lazy.compactMap(\.intValue).first else {
      return BlobID.malformedDescription
    }
    return "entry \(position + 1) has a \(BlobID.malformedDescription)"
  }

  static func writeIndex(_ index: SpaceIndex, in directory: String, master: MasterKey) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    var plaintext = try encoder.encode(index)
    defer { plaintext.wipe() }
    let file = try TemporaryFile(in: directory)
    let writer = try BlobWriter(kind: .index, key: master.blobKey(kind: .index, id: .index), output: file)
    try plaintext.withUnsafeBytes { try writer.write($0) }
    try writer.finish()
    try file.replace(directory + "/" + indexFile)
  }

  // MARK: Format 1 to 2

  /// Turns a format-1 space into format 2: a snapshot of its index is written into a new
  /// folder, which is renamed to `Journal/` in one step; then the old index is removed. A
  /// kill before the rename leaves format 1 (and a temporary folder the next writer
  /// removes), after it format 2; nothing is lost either way.
  func upgradeToJournal() throws {
    precondition(access == .write && formatVersion == 1)
    try requireIndex()
    let state = SpaceState(listing: entries, selectedAt: Timestamp.now().nanosecondsSince1970)
    let staging = directory + "/" + TemporaryFile.prefix + "journal-" + hexString(Sodium.randomBytes(8))
    guard mkdir(staging, 0o700) == 0 else { throw VaultError.posix(staging) }
    do {
      try SpaceJournal.writeSnapshot(of: state, in: staging, master: master)
      // Read back before it replaces the index: a record format 1 accepted but format 2
      // cannot hold must stop the upgrade here, not leave a journal that does not open.
      do {
        _ = try SpaceJournal.load(directory: staging, master: master)
      } catch VaultError.damagedIndex(_, let reason) {
        throw VaultError.damagedIndex(path: indexPath, reason: "it cannot be upgraded to format 2: \(reason)")
      }
      guard rename(staging, journalDirectory) == 0 else { throw VaultError.posix(journalDirectory) }
    } catch {
      removeTree(staging)
      throw error
    }
    try syncDirectory(directory)
    unlink(indexPath)
    try syncDirectory(directory)
    let upgraded = try SpaceJournal.load(directory: journalDirectory, master: master)
    journal = upgraded
    formatVersion = 2
    publish(upgraded.state.entries())
  }
}
