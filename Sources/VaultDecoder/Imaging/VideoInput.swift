import CFFmpeg
import Foundation
import VaultCore

/// Where FFmpeg reads a video from: the descriptor of a file being imported (never its
/// path, which could be swapped meanwhile), bytes in memory (a decrypted original) or a
/// stored original read by range (playback: never decrypted whole), through
/// a custom AVIOContext. It also keeps the time budget: once `deadline` passes, reads fail
/// and FFmpeg's interrupt callback asks it to stop, so that a file built to make the
/// demuxer or decoder spin cannot hold an import forever.
final class VideoInput {
  enum Bytes {
    case file(SourceFile)
    case memory(PinnedBytes)
    /// Bytes read by range from somewhere else (a stored original, decrypted a 64 KiB chunk
    /// at a time as FFmpeg reads it; an upload's encrypted temporary blob): `read` copies
    /// from an offset into a buffer, and returns the count copied (0 at the end).
    case ranges(size: Int64, read: (Int64, UnsafeMutableRawBufferPointer) throws -> Int)

    /// A stored original read through `reader`.
    static func ranges(_ reader: OriginalRangeReader) -> Bytes {
      .ranges(size: reader.size, read: { try reader.read(at: $0, into: $1) })
    }
  }

  /// The name that stands for the video in errors.
  let path: String
  let size: Int64
  private let bytes: Bytes
  private var position: Int64 = 0
  /// When reading must stop, in nanoseconds of the monotonic clock.
  private var deadline: UInt64 = .max
  /// Whether reading stopped because the deadline passed.
  private(set) var timedOut = false
  /// Why reading a stored original failed (a chunk that does not authenticate): the read
  /// stops FFmpeg as a spent time budget does, and `VideoProbe.failure` names this error
  /// instead of a stall.
  private(set) var readFailure: Error?

  /// The AVIOContext reading through this input; freed with it.
  private(set) var context: UnsafeMutablePointer<AVIOContext>!

  /// The size of the buffer FFmpeg reads through: as a blob's chunks.
  static let bufferSize = 64 << 10

  init(_ bytes: Bytes, path: String) throws {
    self.bytes = bytes
    self.path = path
    switch bytes {
    case .file(let file): size = file.size
    case .memory(let memory): size = Int64(memory.count)
    case .ranges(let size, _): self.size = size
    }
    guard let buffer = av_malloc(Self.bufferSize)?.assumingMemoryBound(to: UInt8.self),
      let context = avio_alloc_context(
        buffer, Int32(Self.bufferSize), 0, Unmanaged.passUnretained(self).toOpaque(), Self.readPacket, nil,
        Self.seek)
    else { throw VaultError.videoUnreadable(path: path, reason: "out of memory") }
    self.context = context
  }

  deinit {
    // FFmpeg may have replaced the buffer it was given; the context holds the current one,
    // with the last bytes read (of a decrypted original, perhaps).
    Sodium.zero(context.pointee.buffer, count: Int(context.pointee.buffer_size))
    av_freep(&context.pointee.buffer)
    avio_context_free(&context)
  }

  /// Starts a time budget of `seconds` from now (each stage, probing or decoding, has its own).
  func startBudget(seconds: Double) {
    timedOut = false
    let budget = seconds <= 0 ? 0 : UInt64(min(seconds, 86_400) * 1e9)
    deadline = Self.now() &+ budget
  }

  /// Whether the time budget is spent (remembered, for the error that follows).
  func isPastDeadline() -> Bool {
    if Self.now() >= deadline { timedOut = true }
    return timedOut
  }

  /// The callback FFmpeg's demuxer polls; 1 stops what it does.
  static let interrupt: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
    Unmanaged<VideoInput>.fromOpaque(opaque!).takeUnretainedValue().isPastDeadline() ? 1 : 0
  }

  private static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }

  private static let readPacket:
    @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32)
      -> Int32 = { opaque, buffer, count in
        Unmanaged<VideoInput>.fromOpaque(opaque!).takeUnretainedValue().read(into: buffer!, count: Int(count))
      }

  private static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = {
    opaque, offset, whence in
    Unmanaged<VideoInput>.fromOpaque(opaque!).takeUnretainedValue().seek(to: offset, whence: whence)
  }

  private func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
    if isPastDeadline() { return vault_av_error_exit() }
    let wanted = Int(min(Int64(count), max(0, size - position)))
    guard wanted > 0 else { return vault_av_error_eof() }
    do {
      let read = try read(at: position, into: UnsafeMutableRawBufferPointer(start: buffer, count: wanted))
      guard read > 0 else { return vault_av_error_eof() }
      position += Int64(read)
      return Int32(read)
    } catch let error as SystemError {
      return -error.code
    } catch {
      readFailure = error
      return vault_av_error_exit()
    }
  }

  /// Up to `count` bytes at `offset`, read without moving FFmpeg's position: for checks
  /// made before FFmpeg reads (`MP4SampleCount`).
  func bytes(at offset: Int64, count: Int) throws -> [UInt8] {
    let wanted = Int(min(Int64(count), max(0, size - offset)))
    guard wanted > 0 else { return [] }
    var result = [UInt8](repeating: 0, count: wanted)
    do {
      let read = try result.withUnsafeMutableBytes { try self.read(at: offset, into: $0) }
      return Array(result.prefix(read))
    } catch let error as SystemError {
      throw VaultError.io(path: path, reason: String(cString: strerror(error.code)))
    }
  }

  /// A read's failure in the system (errno), which FFmpeg is given as its own status.
  private struct SystemError: Error {
    let code: Int32
  }

  /// Reads what there is of `buffer.count` bytes at `offset` (which must be within the
  /// video) into `buffer`: the count read, 0 at the end.
  private func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    switch bytes {
    case .memory(let memory):
      buffer.baseAddress!.copyMemory(from: memory.buffer.baseAddress! + Int(offset), byteCount: buffer.count)
      return buffer.count
    case .ranges(_, let readRange):
      return try readRange(offset, buffer)
    case .file(let file):
      while true {
        let read = pread(file.descriptor, buffer.baseAddress, buffer.count, off_t(offset))
        if read < 0 && errno == EINTR { continue }
        guard read >= 0 else { throw SystemError(code: errno) }
        return read
      }
    }
  }

  private func seek(to offset: Int64, whence: Int32) -> Int64 {
    // AVSEEK_SIZE asks for the size; AVSEEK_FORCE is only a hint.
    if whence & AVSEEK_SIZE != 0 { return size }
    let target: Int64
    switch whence & ~AVSEEK_FORCE {
    case SEEK_SET: target = offset
    case SEEK_CUR: target = position &+ offset
    case SEEK_END: target = size &+ offset
    default: return -Int64(EINVAL)
    }
    guard (0...size).contains(target) else { return -Int64(EINVAL) }
    position = target
    return target
  }
}
