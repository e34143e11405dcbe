import Foundation

extension Space {
  /// Offloads the originals of `records` to `remote` (docs/FORMAT.md, "Offloaded
  /// originals"): sends those the remote lacks, as `vault backup` lays them out, checks
  /// that the remote's copy is whole (its MD5 against the local bytes', downloaded where
  /// the backend keeps no MD5), then records the remote, writes each stub and unlinks each
  /// original. One that fails is named and keeps its original; the others go on.
  ///
  /// A space opened to read lets its lock go for the sending and checking, which take no
  /// lock (a blob never changes once named), and changes the space through a short-lived
  /// writer after: a long upload holds up no other command.
  public func offload(
    _ records: [PhotoRecord], to remote: RemoteLocation, progress: (RcloneProgress) -> Void = { _ in }
  ) throws -> OffloadOutcome {
    try requireOffloadRemote(remote)
    var (outcome, local) = sorted(records)
    if access == .read { releaseLock() }
    let checked =
      local.isEmpty
      ? OffloadCopies.Checked()
      : try OffloadCopies(blobs: blobs, remote: remote).send(local, progress: progress)
    outcome.sent = checked.sent
    let copied = stubs(of: local, in: checked, failures: &outcome)
    // Opened even with nothing to record: as every write command, it tidies after a killed
    // one (an offload killed after its last original went leaves its writer's mark).
    try writing { writer in
      try writer.requireOffloadRemote(remote)
      for (record, stub) in copied {
        do {
          try writer.offload(record, to: remote, leaving: stub)
          outcome.offloaded.append(record)
        } catch {
          outcome.failed.append((record, error))
        }
      }
    }
    return outcome
  }

  /// The originals of `local` whose copies checked, each with its stub; the others are
  /// named in `failures` with why.
  private func stubs(
    of local: [PhotoRecord], in checked: OffloadCopies.Checked, failures: inout OffloadOutcome
  )
    -> [(PhotoRecord, OffloadStub)]
  {
    local.compactMap { record in
      do {
        guard let stub = try checked.stubs[record.id]?.get() else { return nil }
        return (record, stub)
      } catch {
        failures.failed.append((record, error))
        return nil
      }
    }
  }

  /// The outcome so far of `records`: those already remote or missing; and those whose
  /// original is on the disk.
  private func sorted(_ records: [PhotoRecord]) -> (OffloadOutcome, [PhotoRecord]) {
    var outcome = OffloadOutcome()
    var local: [PhotoRecord] = []
    for record in records {
      switch blobs.place(of: record.id) {
      case .local: local.append(record)
      case .remote: outcome.alreadyRemote.append(record)
      case .missing:
        outcome.failed.append(
          (record, VaultError.damagedBlob(what: describe(record), reason: "its file is missing")))
      }
    }
    return (outcome, local)
  }

  /// Records the remote, writes the stub and unlinks the original, unless the photo was
  /// deleted for good (or its original taken away) while its copy was sent.
  private func offload(_ record: PhotoRecord, to remote: RemoteLocation, leaving stub: OffloadStub) throws {
    guard !wasDeleted(record.id), blobs.place(of: record.id) == .local else {
      throw VaultError.damagedBlob(what: describe(record), reason: "it was deleted while its copy was sent")
    }
    try recordOffloadRemote(remote)
    try removeOriginal(record, leaving: stub)
  }

  /// Refuses a remote other than the recorded one while originals are on that one: they
  /// would no longer be found.
  private func requireOffloadRemote(_ remote: RemoteLocation) throws {
    guard let recorded = blobs.offloadRemote, recorded != remote.text, !blobs.remoteOriginals().isEmpty else {
      return
    }
    throw VaultError.offloadedElsewhere(remote: recorded)
  }

  /// Records `remote` as the space's, unless it is already.
  private func recordOffloadRemote(_ remote: RemoteLocation) throws {
    guard blobs.offloadRemote != remote.text else { return }
    let stamp = try requireJournal().state.nextStamp(now: Timestamp.now().nanosecondsSince1970)
    try record([.offloadRemote(remote.text, stamp: stamp)])
  }

  /// Writes the stub (durably), then unlinks the original: at any moment between, the
  /// original is there, and wins.
  private func removeOriginal(_ record: PhotoRecord, leaving stub: OffloadStub) throws {
    if mkdir(blobs.offloadedDirectory, 0o700) == 0 {
      // The new folder's name is durable before a stub in it counts on it.
      try syncDirectory(directory)
    } else if errno != EEXIST {
      throw VaultError.posix(blobs.offloadedDirectory)
    }
    let file = try TemporaryFile(in: blobs.offloadedDirectory)
    try stub.text.withUnsafeBytes { try file.write($0) }
    try file.replace(blobs.stubPath(record.id))
    guard unlink(photoPath(record.id)) == 0 else { throw VaultError.posix(photoPath(record.id)) }
    try syncDirectory(photoDirectory)
  }
}
