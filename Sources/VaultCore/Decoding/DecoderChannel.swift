import CVaultSystem
import Foundation

/// Reads and writes `DecoderFrame`s on a stream socket. The helper's side blocks; the
/// parent's side waits at most until a deadline (poll), since a helper may never answer.
final class DecoderChannel {
  let descriptor: Int32
  /// Whether this side takes descriptors sent with frames (the helper's, for files being
  /// imported); the parent closes any a helper sends.
  private let acceptsDescriptors: Bool
  /// The descriptor that came with the last frame received, until it is taken.
  private var receivedDescriptor: Int32 = -1

  init(descriptor: Int32, acceptsDescriptors: Bool = false) {
    self.descriptor = descriptor
    self.acceptsDescriptors = acceptsDescriptors
  }

  deinit {
    if receivedDescriptor >= 0 { close(receivedDescriptor) }
  }

  /// The descriptor that came with the last frame, now the caller's; nil if none did.
  func takeDescriptor() -> Int32? {
    defer { receivedDescriptor = -1 }
    return receivedDescriptor >= 0 ? receivedDescriptor : nil
  }

  enum Failure: Error, Equatable {
    /// The other side closed the socket (or died).
    case closed
    /// The deadline passed before a whole frame came.
    case timedOut
    /// A length out of bounds, or a kind nobody sends.
    case malformed
    case system(Int32)
  }

  /// Sends `frame` whole, with `trailing` appended to its payload (a file the parent holds,
  /// written from where it lies rather than copied into the frame). MSG_NOSIGNAL: a
  /// helper that died must not kill the parent with SIGPIPE; it is reported when its reply
  /// does not come.
  func send(_ frame: DecoderFrame, trailing: UnsafeRawBufferPointer? = nil, descriptor attached: Int32? = nil)
    throws
  {
    var header = ByteWriter()
    header.uint32(UInt32(1 + frame.payload.count + (trailing?.count ?? 0)))
    header.byte(frame.kind.rawValue)
    if let attached {
      // The descriptor goes with the frame's first bytes (SCM_RIGHTS); the rest follows.
      let sent = header.output.withUnsafeBytes {
        vault_send_with_descriptor(descriptor, $0.baseAddress, UInt($0.count), attached)
      }
      guard sent == header.output.count else {
        throw sent < 0 && (errno == EPIPE || errno == ECONNRESET) ? Failure.closed : Failure.system(errno)
      }
    } else {
      try header.output.withUnsafeBytes { try sendAll($0) }
    }
    try frame.payload.withUnsafeBytes { try sendAll($0) }
    if let trailing { try sendAll(trailing) }
  }

  private func sendAll(_ bytes: UnsafeRawBufferPointer) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = Glibc.send(
        descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
      if sent < 0 {
        if errno == EINTR { continue }
        throw errno == EPIPE || errno == ECONNRESET ? Failure.closed : Failure.system(errno)
      }
      offset += sent
    }
  }

  /// The next frame, of at most `limit` bytes, before `deadline` (monotonic nanoseconds;
  /// nil waits for ever).
  func receive(limit: Int = DecoderFrame.maxLength, deadline: UInt64? = nil) throws -> DecoderFrame {
    let header = try receive(count: 4, deadline: deadline)
    guard let length = DecoderFrame.bodyLength(header, limit: limit) else { throw Failure.malformed }
    guard let frame = DecoderFrame(body: try receive(count: length, deadline: deadline)) else {
      throw Failure.malformed
    }
    return frame
  }

  /// The body of a `file` frame of exactly `count` bytes, read straight into memory that
  /// decoders read in place (the helper's side: a file sent whole is never copied again).
  func receiveFile(count: Int) throws -> PinnedBytes {
    let header = try receive(count: 5, deadline: nil)
    // A file's frame is bounded by what is sent whole, not by the replies' limit.
    guard count <= DecoderInput.wholeLimit,
      DecoderFrame.bodyLength(Array(header.prefix(4)), limit: DecoderInput.wholeLimit + 1) == count + 1,
      header[4] == DecoderMessageKind.file.rawValue
    else { throw Failure.malformed }
    let bytes = PinnedBytes(count: count)
    try receive(into: UnsafeMutableRawBufferPointer(bytes.buffer), count: count, deadline: nil)
    return bytes
  }

  private func receive(count: Int, deadline: UInt64?) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    try bytes.withUnsafeMutableBytes { try receive(into: $0, count: count, deadline: deadline) }
    return bytes
  }

  private func receive(into bytes: UnsafeMutableRawBufferPointer, count: Int, deadline: UInt64?) throws {
    var offset = 0
    while offset < count {
      if let deadline { try wait(until: deadline) }
      var attached: Int32 = -1
      let read = vault_receive_with_descriptor(
        descriptor, bytes.baseAddress! + offset, UInt(count - offset), &attached)
      if attached >= 0 {
        if receivedDescriptor >= 0 { close(receivedDescriptor) }
        receivedDescriptor = attached
        if !acceptsDescriptors { _ = takeDescriptor().map(close) }
      }
      if read < 0 {
        if errno == EINTR { continue }
        throw errno == ECONNRESET ? Failure.closed : Failure.system(errno)
      }
      if read == 0 { throw Failure.closed }
      offset += read
    }
  }

  /// Returns once the socket has bytes (or is closed); throws `timedOut` at `deadline`.
  private func wait(until deadline: UInt64) throws {
    while true {
      let now = Self.now()
      guard now < deadline else { throw Failure.timedOut }
      var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
      let ready = poll(&entry, 1, milliseconds)
      if ready > 0 { return }
      if ready < 0 && errno != EINTR { throw Failure.system(errno) }
    }
  }

  /// Nanoseconds of the monotonic clock.
  static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
