import CSodium
import Foundation

/// Reads a seekable (version 3) blob: any byte range of its plaintext, decrypting only the
/// chunks that cover it, each authenticated as the chunk of its number (and as the last
/// one or not) before any of its bytes are handed out. Opening it reads the trailer from
/// the last chunk, which proves where the blob ends: a blob cut or extended at a chunk
/// boundary fails there. Errors name `what` (docs/FORMAT.md, "Seekable blobs").
package final class SeekableBlobReader {
  let what: String
  /// Every plaintext byte: payload, padding, trailer and the trailer's length.
  let plaintextLength: Int
  let chunkCount: Int
  /// The bytes `SeekableBlobWriter.finish(trailer:)` was given; wiped when the reader goes.
  private(set) var trailer: [UInt8] = []
  private let source: any BlobSource
  private let cipher: ChunkCipher
  private let lastSealedLength: Int
  private let chunk = SecureBytes(count: SeekableBlobFormat.chunkSize)
  /// The chunk whose plaintext `chunk` holds, if any.
  private var chunkInBuffer: Int?
  private var sealed = [UInt8](repeating: 0, count: SeekableBlobFormat.sealedChunkSize)

  /// The reader of the blob `source` holds if it says it is seekable (version 3); nil for
  /// anything else (a blob too short to say among it), left for `BlobReader` to report.
  static func openIfSeekable(
    source: any BlobSource, kind: BlobKind, key: SecureBytes, what: String, trailerLimit: Int?
  ) throws -> SeekableBlobReader? {
    var prefix = [UInt8](repeating: 0, count: BlobFormat.prefixLength)
    let count = try prefix.withUnsafeMutableBytes {
      try source.read(at: 0, into: $0.baseAddress!, count: $0.count, what: what)
    }
    guard count == prefix.count,
      Array(prefix[0..<4]) == BlobFormat.magic, prefix[4] == SeekableBlobFormat.version
    else { return nil }
    return try SeekableBlobReader(
      source: source, kind: kind, key: key, what: what, trailerLimit: trailerLimit)
  }

  /// Opens the blob and reads its trailer (at most `trailerLimit` bytes).
  package convenience init(path: String, kind: BlobKind, key: SecureBytes, what: String, trailerLimit: Int)
    throws
  {
    try self.init(
      source: LocalBlobFile.open(path, what: what), kind: kind, key: key, what: what,
      trailerLimit: trailerLimit)
  }

  /// Reads the blob `source` holds, and its trailer unless `trailerLimit` is nil (then
  /// `loadTrailer` reads it later, and until then the blob's end is proven only by its last
  /// chunk).
  private init(source: any BlobSource, kind: BlobKind, key: SecureBytes, what: String, trailerLimit: Int?)
    throws
  {
    self.what = what
    self.source = source
    let header = try Self.readHeader(source, kind: kind, what: what)
    cipher = ChunkCipher(
      key: key, noncePrefix: Array(header[BlobFormat.prefixLength...]),
      additionalData: Array(header[0..<BlobFormat.prefixLength]))
    guard let lengths = SeekableBlobFormat.plaintextLength(fileLength: source.length) else {
      throw VaultError.damagedBlob(what: what, reason: "truncated: its last chunk is cut short")
    }
    plaintextLength = lengths.plaintext
    chunkCount = lengths.chunks
    lastSealedLength =
      lengths.plaintext - (lengths.chunks - 1) * SeekableBlobFormat.chunkSize + SeekableBlobFormat.tagLength
    // The first chunk authenticates at once, as a version-2 blob's does on opening: a
    // quick check (headers only) finds a changed header or start.
    _ = try decryptChunk(0)
    if let trailerLimit { trailer = try readTrailer(limit: trailerLimit) }
  }

  /// Reads the trailer (at most `limit` bytes) of a reader opened without it.
  func loadTrailer(limit: Int) throws {
    trailer = try readTrailer(limit: limit)
  }

  deinit {
    trailer.wipe()
  }

  /// Where the trailer starts in the plaintext (the padding ends there).
  package var trailerOffset: Int { plaintextLength - SeekableBlobFormat.trailerLengthSize - trailer.count }

  /// The prefix and nonce prefix, once the magic, version and kind are checked.
  private static func readHeader(_ source: any BlobSource, kind: BlobKind, what: String) throws -> [UInt8] {
    var header = [UInt8](repeating: 0, count: SeekableBlobFormat.headerLength)
    let count = try header.withUnsafeMutableBytes {
      try source.read(at: 0, into: $0.baseAddress!, count: $0.count, what: what)
    }
    guard count == header.count else {
      throw VaultError.damagedBlob(what: what, reason: "truncated header")
    }
    guard Array(header[0..<4]) == BlobFormat.magic else {
      throw VaultError.damagedBlob(what: what, reason: "not a vault blob")
    }
    guard header[4] == SeekableBlobFormat.version else {
      throw VaultError.damagedBlob(what: what, reason: "unsupported blob version \(header[4])")
    }
    guard header[5] == kind.rawValue else {
      throw VaultError.damagedBlob(what: what, reason: "holds a blob of another kind")
    }
    return header
  }

  /// The trailer: its length is the plaintext's last 4 bytes, and it ends just before them.
  private func readTrailer(limit: Int) throws -> [UInt8] {
    let lengthOffset = plaintextLength - SeekableBlobFormat.trailerLengthSize
    guard lengthOffset >= 0 else {
      throw VaultError.damagedBlob(
        what: what, reason: "holds \(plaintextLength) bytes, too few for a trailer")
    }
    var length = 0
    try forEachPiece(of: lengthOffset..<plaintextLength) { piece in
      for byte in piece { length = length << 8 | Int(byte) }
    }
    guard length <= min(limit, lengthOffset) else {
      throw VaultError.damagedBlob(what: what, reason: "its trailer length \(length) is out of range")
    }
    var result = [UInt8]()
    result.reserveCapacity(length)  // never grown, so never copied
    try forEachPiece(of: lengthOffset - length..<lengthOffset) { result.append(contentsOf: $0) }
    return result
  }

  /// Hands the plaintext of `range` to `body` in pieces, one per chunk it covers, each
  /// authenticated first. A piece is valid only during its call.
  func forEachPiece(of range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
    precondition(range.lowerBound >= 0 && range.upperBound <= plaintextLength, "a range inside the plaintext")
    var offset = range.lowerBound
    while offset < range.upperBound {
      let index = offset / SeekableBlobFormat.chunkSize
      let chunkStart = index * SeekableBlobFormat.chunkSize
      let length = try decryptChunk(index)
      let end = min(range.upperBound, chunkStart + length)
      try body(UnsafeRawBufferPointer(start: chunk.bytes + (offset - chunkStart), count: end - offset))
      offset = end
    }
  }

  /// As `forEachPiece`, with the chunks decrypted a few ahead on a thread of their own
  /// (`ChunkReadAhead`), so that what `body` does with one piece overlaps decrypting the
  /// next: for a long range read whole, a big original's export or check. `alongside`, if
  /// given, gets the same pieces in order on a third thread (hashing while `body` writes);
  /// it has had them all when this returns.
  func forEachPieceReadingAhead(
    of range: Range<Int>, alongside: ((UnsafeRawBufferPointer) -> Void)? = nil,
    _ body: (UnsafeRawBufferPointer) throws -> Void
  ) throws {
    precondition(range.lowerBound >= 0 && range.upperBound <= plaintextLength, "a range inside the plaintext")
    guard !range.isEmpty else { return }
    let size = SeekableBlobFormat.chunkSize
    let chunks = range.lowerBound / size..<(range.upperBound - 1) / size + 1
    // The part of chunk `index` (whose plaintext is `plaintext`) inside the range.
    let piece = { (index: Int, plaintext: UnsafeMutableBufferPointer<UInt8>) -> UnsafeRawBufferPointer in
      let chunkStart = index * size
      let start = max(range.lowerBound, chunkStart)
      let end = min(range.upperBound, chunkStart + plaintext.count)
      return UnsafeRawBufferPointer(start: plaintext.baseAddress! + (start - chunkStart), count: end - start)
    }
    let follower = alongside.map { alongside in { index, plaintext in alongside(piece(index, plaintext)) } }
    try ChunkReadAhead(self, chunks: chunks, follower: follower).forEachChunk { index, plaintext in
      try body(piece(index, plaintext))
    }
  }

  /// Decrypts the plaintext at `offset` into `buffer`, filling it: each chunk it covers
  /// whole straight into it, the others through `chunk`.
  func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
    let size = SeekableBlobFormat.chunkSize
    var filled = 0
    while filled < buffer.count {
      let place = offset + filled
      let index = place / size
      let target = buffer.baseAddress! + filled
      if place == index * size, buffer.count - filled >= chunkLength(index), chunkInBuffer != index {
        filled += try decrypt(index, through: &sealed, into: target.assumingMemoryBound(to: UInt8.self))
        continue
      }
      try forEachPiece(of: place..<min(offset + buffer.count, (index + 1) * size)) { piece in
        target.copyMemory(from: piece.baseAddress!, byteCount: piece.count)
        filled += piece.count
      }
    }
  }

  /// Checks that the blob's length is the one a `payloadLength`-byte payload gets: Padmé
  /// of payload, trailer and its length, no more, no less.
  func checkLength(payloadLength: Int) throws {
    guard (0...trailerOffset).contains(payloadLength) else {
      throw VaultError.damagedBlob(
        what: what, reason: "holds \(plaintextLength) bytes, too few for a \(payloadLength)-byte payload")
    }
    // Padmé never shrinks a length, so with the right length the payload ends before the
    // trailer starts.
    let expected = SeekableBlobFormat.plaintextLength(
      payloadLength: payloadLength, trailerLength: trailer.count)
    guard plaintextLength == expected else {
      throw VaultError.damagedBlob(
        what: what,
        reason: "holds \(plaintextLength) bytes, a \(payloadLength)-byte payload and "
          + "\(trailer.count)-byte trailer get \(expected)")
    }
  }

  /// Checks the length (`checkLength`) and that the bytes between the payload and the
  /// trailer are all zero.
  package func checkPadding(payloadLength: Int) throws {
    try checkLength(payloadLength: payloadLength)
    try forEachPiece(of: payloadLength..<trailerOffset) { piece in
      guard piece.allSatisfy({ $0 == 0 }) else {
        throw VaultError.damagedBlob(what: what, reason: "its padding is not all zero bytes")
      }
    }
  }

  /// Decrypts chunk `index` into `chunk` (unless it is there already); its plaintext length.
  private func decryptChunk(_ index: Int) throws -> Int {
    if chunkInBuffer == index { return chunkLength(index) }
    chunkInBuffer = nil
    let length = try decrypt(index, through: &sealed, into: chunk.mutableBytes)
    chunkInBuffer = index
    return length
  }

  /// The plaintext length of chunk `index`.
  func chunkLength(_ index: Int) -> Int {
    (index == chunkCount - 1 ? lastSealedLength : SeekableBlobFormat.sealedChunkSize)
      - SeekableBlobFormat.tagLength
  }

  /// Decrypts chunk `index` into `plaintext` (a chunk's room, wiped again if it does not
  /// authenticate), where the source holds it or read into `sealed`; its plaintext length. Touches nothing but its
  /// arguments (and reads the source at its place), so another thread may call it too
  /// (`ChunkReadAhead`).
  func decrypt(_ index: Int, through sealed: inout [UInt8], into plaintext: UnsafeMutablePointer<UInt8>)
    throws
    -> Int
  {
    let last = index == chunkCount - 1
    let length = chunkLength(index)
    let sealedLength = length + SeekableBlobFormat.tagLength
    let offset = SeekableBlobFormat.headerLength + index * SeekableBlobFormat.sealedChunkSize
    let open = { (sealedBytes: UnsafeRawBufferPointer) in
      self.cipher.open(
        sealedBytes.assumingMemoryBound(to: UInt8.self).baseAddress!, count: sealedLength, index: index,
        last: last, into: plaintext)
    }
    // Decrypted where the source holds the chunk, if it does (`ReadAheadBlobFile`), else
    // read into `sealed` first.
    var opened = try source.withBytesInPlace(at: offset, count: sealedLength, what: what, open)
    if opened == nil {
      let count = try sealed.withUnsafeMutableBytes {
        try source.read(at: offset, into: $0.baseAddress!, count: sealedLength, what: what)
      }
      guard count == sealedLength else {
        throw VaultError.damagedBlob(what: what, reason: "ends too early: it changed while it was read")
      }
      opened = sealed.withUnsafeBytes(open)
    }
    guard opened == true else {
      sodium_memzero(plaintext, length)
      let reason =
        last
        ? "its last chunk (\(index)) does not authenticate as the end of the blob (changed, truncated or extended)"
        : "chunk \(index) does not authenticate (changed, truncated or swapped)"
      throw VaultError.damagedBlob(what: what, reason: reason)
    }
    return length
  }
}
