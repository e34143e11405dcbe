/// An offloaded original's blob, read from its copy on a remote by byte range: each read is
/// served from `RemoteBlockCache`, and a block it lacks is fetched with the blocks after it
/// (up to `readAheadBlocks` in one remote read, stopping at one held already), so that a
/// video played or read through the mount costs a remote read every few MiB, and a seek
/// fetches no more than that. Its length is the stub's: a copy that ends before is damage.
package final class RemoteBlobFile: BlobSource {
  package var fetchesOverNetwork: Bool { true }

  /// Blocks fetched at most by one remote read: 4 MiB.
  package static let readAheadBlocks = 4

  package let length: Int
  private let path: String
  private let reader: any RemoteRangeReader
  private let cache: RemoteBlockCache

  /// The blob at `path` on the remote `reader` reads, `length` bytes long.
  package init(
    path: String, length: Int, reader: any RemoteRangeReader, cache: RemoteBlockCache = .shared
  ) {
    self.path = path
    self.length = length
    self.reader = reader
    self.cache = cache
  }

  package func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    // Overflow-safe whatever the caller asks: nothing is read past `length`.
    guard offset >= 0, offset < length else { return 0 }
    let end = offset + min(length - offset, buffer.count)
    var place = offset
    while place < end {
      let number = place / RemoteBlockCache.blockSize
      let bytes = try block(number)
      let start = place - number * RemoteBlockCache.blockSize
      let count = min(end - place, bytes.count - start)
      bytes.withUnsafeBytes {
        (buffer.baseAddress! + (place - offset)).copyMemory(from: $0.baseAddress! + start, byteCount: count)
      }
      place += count
    }
    return max(0, end - offset)
  }

  /// Blocks fetched at most by one remote read: `readAheadBlocks`, or fewer in a cache too
  /// small to keep them until they are read.
  var readAhead: Int { max(1, min(Self.readAheadBlocks, cache.limit / RemoteBlockCache.blockSize / 4)) }

  private func key(_ number: Int) -> RemoteBlockCache.Key {
    RemoteBlockCache.Key(file: reader.remote + "\0" + path, block: number)
  }

  /// Block `number`, from the cache or fetched with those after it.
  private func block(_ number: Int) throws -> [UInt8] {
    if let bytes = cache.block(key(number)) { return bytes }
    let size = RemoteBlockCache.blockSize
    let blockCount = length / size + (length % size == 0 ? 0 : 1)
    var last = number
    while last + 1 < min(blockCount, number + readAhead), cache.block(key(last + 1)) == nil {
      last += 1
    }
    let start = number * size
    let count = min(length - start, (last + 1 - number) * size)
    let bytes = try reader.read(path, offset: start, count: count)
    guard bytes.count == count else {
      throw BlobReadFailure(
        "its copy on '\(RemoteRedaction.redacted(reader.remote))' ends at byte \(start + bytes.count), its stub says \(length)"
      )
    }
    for other in number...last {
      let piece = Array(bytes[(other - number) * size..<min(count, (other - number + 1) * size)])
      cache.keep(piece, as: key(other))
    }
    return Array(bytes[0..<min(count, size)])
  }
}
