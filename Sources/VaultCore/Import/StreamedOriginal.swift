import Foundation

/// An original encrypted as its bytes arrive (an upload), never plaintext on disk and at
/// most one 64 KiB chunk of it in memory: a seekable blob, under the key of the id the
/// photo will have, in an unnamed file of the space's `Photo/` folder (a crash or a
/// failure leaves nothing, and no tidy of another writer can take it away meanwhile).
/// Until `finish` its payload reads back by range (its format, its thumbnail, a video's
/// header, which may sit at its end); then the record is written last and the file is
/// given the photo's name: there is no second encryption pass. Not thread-safe.
final class StreamedOriginal {
  let id: BlobID
  /// The name that stands for it in errors.
  let name: String
  let file: TemporaryFile
  private let writer: SeekableBlobWriter
  private var reader: Int32
  private let chunk = SecureBytes(count: SeekableBlobFormat.chunkSize)
  /// How many bytes were written since the kernel was last asked to start writing them
  /// out: a multi-GiB upload must not pile up dirty pages for one long flush at the end.
  private var unflushed = 0
  private static let writebackStep = 16 << 20

  /// Starts the blob in `space`'s `Photo/` folder.
  init(in space: Space, name: String) throws {
    id = .random()
    self.name = name
    file = try TemporaryFile(in: space.photoDirectory, unnamed: true)
    writer = try SeekableBlobWriter(
      kind: .original, key: space.master.blobKey(kind: .original, id: id), output: file)
    reader = try file.openForReading()
  }

  deinit {
    closeReader()
    file.discard()
  }

  /// The payload's bytes written so far.
  var size: Int { writer.payloadLength }

  /// Encrypts and writes `bytes` after what came before.
  func write(_ bytes: UnsafeRawBufferPointer) throws {
    try writer.write(bytes)
    unflushed += bytes.count
    if unflushed >= Self.writebackStep {
      file.startWriteback()
      unflushed = 0
    }
  }

  /// Copies up to `buffer.count` payload bytes from `offset` into `buffer`; the count
  /// copied, short only at the end of what was written. Throws `damagedBlob` for a chunk
  /// that does not read back as it was written.
  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    let end = min(size, offset + buffer.count)
    var position = offset
    while position < end {
      let index = position / SeekableBlobFormat.chunkSize
      let within = position % SeekableBlobFormat.chunkSize
      let take = min(SeekableBlobFormat.chunkSize - within, end - position)
      guard let plaintext = writer.readBack(chunk: index, from: reader, into: chunk) else {
        throw VaultError.damagedBlob(what: "upload '\(name)'", reason: "a chunk did not read back as written")
      }
      (buffer.baseAddress! + (position - offset)).copyMemory(from: plaintext + within, byteCount: take)
      position += take
    }
    return max(0, end - offset)
  }

  /// The whole payload read back into memory (a still, whose decoders read it there); the
  /// caller wipes it.
  func readWhole() throws -> PinnedBytes {
    let bytes = PinnedBytes(count: size)
    _ = try read(at: 0, into: UnsafeMutableRawBufferPointer(bytes.buffer))
    return bytes
  }

  /// Writes `record` (whose id is this blob's) after the payload, as the blob's trailer.
  func finish(record: PhotoRecord) throws {
    precondition(record.id == id, "the blob is encrypted under its id's key")
    closeReader()
    var json = try OriginalBlob.recordJSON(record)
    defer { json.wipe() }
    try writer.finish(trailer: json)
  }

  private func closeReader() {
    if reader >= 0 { close(reader) }
    reader = -1
  }
}
