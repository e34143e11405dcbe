/// A photo whose blobs are written under temporary names in its space, waiting to be
/// committed: `moveIntoPlace`, then `Space.commitImported`. `add` and uploads store photos
/// through here alike.
final class PreparedPhoto {
  let record: PhotoRecord
  let photoFile: TemporaryFile
  let thumbFile: TemporaryFile
  let warning: String?
  /// Apple's content identifier, when the file carries one (a Live Photo's half).
  let liveIdentifier: String?
  /// Nil when the blobs are flushed as they are moved into place.
  private let flush: PendingFlush?

  /// Encrypts the original (what `writeContent` writes, which must be exactly the record's
  /// `bytes`, then the record) and the thumbnail `decoded` holds into temporary files in
  /// `space`.
  /// `source` names the photo in errors. With a `flusher`, both files are flushed in the
  /// background: a flush waits on the disk, and a decode thread waiting leaves its core
  /// idle.
  init(
    record: PhotoRecord, decoded: DecodedImport, in blobs: SpaceBlobs, source: String,
    flusher: BackgroundFlusher?,
    writeContent: (SeekableBlobWriter) throws -> Void
  ) throws {
    self.record = record
    liveIdentifier = decoded.liveIdentifier
    warning = decoded.thumbnail.warning
    do {
      photoFile = try TemporaryFile(in: blobs.photoDirectory)
      let photoWriter = try SeekableBlobWriter(
        kind: .original, key: blobs.master.blobKey(kind: .original, id: record.id), output: photoFile)
      try writeContent(photoWriter)
      // What is stored is exactly what the record describes.
      guard photoWriter.payloadLength == Int(record.bytes) else {
        throw VaultError.io(path: source, reason: "file changed while it was being imported")
      }
      var json = try OriginalBlob.recordJSON(record)
      defer { json.wipe() }
      try photoWriter.finish(trailer: json)
      thumbFile = try blobs.sealThumbnail(decoded.thumbnail.jpeg, id: record.id, flush: false)
    } catch VaultError.io(let folder, let reason) where folder.hasPrefix(blobs.directory) {
      // Name the photo, not the vault folder the write failed in.
      throw VaultError.io(path: source, reason: "cannot store it in the vault: \(reason)")
    }
    flush = flusher?.flush([thumbFile, photoFile])
  }

  /// The same for an original already encrypted as it arrived (an upload): its record is
  /// written last, after its payload, then the thumbnail is sealed.
  init(
    record: PhotoRecord, decoded: DecodedImport, in blobs: SpaceBlobs, streamed: StreamedOriginal
  ) throws {
    self.record = record
    liveIdentifier = decoded.liveIdentifier
    warning = decoded.thumbnail.warning
    do {
      try streamed.finish(record: record)
      photoFile = streamed.file
      thumbFile = try blobs.sealThumbnail(decoded.thumbnail.jpeg, id: record.id, flush: false)
    } catch VaultError.io(let folder, let reason) where folder.hasPrefix(blobs.directory) {
      throw VaultError.io(path: streamed.name, reason: "cannot store it in the vault: \(reason)")
    }
    flush = nil
  }

  /// Renames both blobs to their final names once they are flushed (the caller syncs the
  /// folders, in `Space.commitImported`).
  func moveIntoPlace(space: Space) throws {
    try flush?.wait()
    try thumbFile.replace(space.thumbPath(record.id), syncFolder: false)
    if photoFile.path != nil {
      try photoFile.replace(space.photoPath(record.id), syncFolder: false)
    } else if try !photoFile.moveWithoutReplacing(to: space.photoPath(record.id)) {
      // An unnamed file (a streamed upload) is linked in; ids are random, so a taken name
      // is a file no writer leaves.
      throw VaultError.io(path: space.photoPath(record.id), reason: "a file of that name is in the way")
    }
  }

  func discard() {
    // The flushing thread may still be using their descriptors.
    try? flush?.wait()
    photoFile.discard()
    thumbFile.discard()
  }
}
