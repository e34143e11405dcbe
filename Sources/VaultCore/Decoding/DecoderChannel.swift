import CVaultSystem
import Foundation

/// Reads and writes `DecoderFrame`s on a stream socket. The helper's side blocks; the
/// parent's side waits at most until a deadline (poll), since a helper may never answer.
package final class DecoderChannel {
  package let descriptor: Int32
  /// Whether this side takes descriptors sent with frames (the helper's, for files being
  /// imported); the parent closes any a helper sends and takes the reply as malformed.
  private let acceptsDescriptors: Bool
  /// The descriptor that came with the last frame received, until it is taken.
  private var receivedDescriptor: Int32 = -1

  package init(descriptor: Int32, acceptsDescriptors: Bool = false) {
    self.descriptor = descriptor
    self.acceptsDescriptors = acceptsDescriptors
  }

  deinit {
    if receivedDescriptor >= 0 { close(receivedDescriptor) }
  }

  /// The descriptor that came with the last frame, now the caller's; nil if none did.
  package func takeDescriptor() -> Int32? {
    defer { receivedDescriptor = -1 }
    return receivedDescriptor >= 0 ? receivedDescriptor : nil
  }

  package enum Failure: Error, Equatable {
    /// The other side closed the socket (or died).
    case closed
    /// The deadline passed before a whole frame came.
    case timedOut
    /// A length out of bounds, or a kind nobody sends.
    case malformed
    case system(Int32)
  }

  /// Sends `frame` whole, with `trailing` appended to its payload (a file the parent holds,
  /// written from where it lies rather than copied into the frame), before `deadline`
  /// (monotonic nanoseconds; nil waits for ever, for the helper's side only): a helper that
  /// stops reading must not hold the parent in a write. The deadline has no default, so
  /// that no write of the parent's is left without one (a `buffer` frame was, and a helper
  /// that filled the socket first held `vault show` past its deadline). MSG_NOSIGNAL: a
  /// helper that died must not kill the parent with SIGPIPE; it is reported when its reply
  /// does not come.
  package func send(
    _ frame: DecoderFrame, trailing: UnsafeRawBufferPointer? = nil, descriptor attached: Int32? = nil,
    deadline: UInt64?
  ) throws {
    var header = ByteWriter()
    header.uint32(UInt32(1 + frame.payload.count + (trailing?.count ?? 0)))
    header.byte(frame.kind.rawValue)
    try header.output.withUnsafeBytes { try sendAll($0, descriptor: attached, deadline: deadline) }
    try frame.payload.withUnsafeBytes { try sendAll($0, deadline: deadline) }
    if let trailing { try sendAll(trailing, deadline: deadline) }
  }

  /// Writes `bytes` whole, `attached` (SCM_RIGHTS) with the first of them. With a
  /// deadline the socket is written without blocking (MSG_DONTWAIT) and waited on with
  /// poll; without one (the helper's side, whose filter has no poll) a write blocks.
  private func sendAll(_ bytes: UnsafeRawBufferPointer, descriptor attached: Int32? = nil, deadline: UInt64?)
    throws
  {
    let flags = Int32(MSG_NOSIGNAL) | (deadline == nil ? 0 : Int32(MSG_DONTWAIT))
    var offset = 0
    var pending = attached
    while offset < bytes.count {
      let start = bytes.baseAddress! + offset
      let sent =
        pending.map { vault_send_with_descriptor(descriptor, start, UInt(bytes.count - offset), $0, flags) }
        ?? Glibc.send(descriptor, start, bytes.count - offset, flags)
      if sent < 0 {
        if errno == EINTR { continue }
        if errno == EAGAIN || errno == EWOULDBLOCK, let deadline {
          try wait(for: Int16(POLLOUT), until: deadline)
          continue
        }
        throw errno == EPIPE || errno == ECONNRESET ? Failure.closed : Failure.system(errno)
      }
      pending = nil
      offset += sent
    }
  }

  /// The next frame, of at most `limit` bytes, before `deadline` (monotonic nanoseconds;
  /// nil waits for ever). Its payload is read straight into the frame's own bytes, which
  /// the receiver wipes when they hold plaintext: no copy of them is freed unwiped.
  package func receive(limit: Int = DecoderFrame.maxLength, deadline: UInt64? = nil) throws -> DecoderFrame {
    let header = try receive(count: 4, deadline: deadline)
    guard let length = DecoderFrame.bodyLength(header, limit: limit),
      let kind = DecoderMessageKind(rawValue: try receive(count: 1, deadline: deadline)[0])
    else { throw Failure.malformed }
    return DecoderFrame(kind, try receive(count: length - 1, deadline: deadline))
  }

  /// The body of a `file` frame of exactly `count` bytes, read straight into memory that
  /// decoders read in place (the helper's side: a file sent whole is never copied again).
  package func receiveFile(count: Int) throws -> PinnedBytes {
    let header = try receive(count: 5, deadline: nil)
    // A file's frame is bounded by what is sent whole, not by the replies' limit.
    guard count <= DecoderFrame.fileLimit,
      DecoderFrame.bodyLength(Array(header.prefix(4)), limit: DecoderFrame.fileLimit + 1) == count + 1,
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
      if let deadline { try wait(for: Int16(POLLIN), until: deadline) }
      var attached: Int32 = -1
      let read = vault_receive_with_descriptor(
        descriptor, bytes.baseAddress! + offset, UInt(count - offset), &attached)
      if attached >= 0 && !acceptsDescriptors { close(attached) }
      // A descriptor this side never asks for, or more than one: the peer is not the
      // helper (or parent) it should be. Each was closed; what it sent is not read on.
      guard attached == -1 || (attached >= 0 && acceptsDescriptors) else { throw Failure.malformed }
      if attached >= 0 {
        if receivedDescriptor >= 0 { close(receivedDescriptor) }
        receivedDescriptor = attached
      }
      if read < 0 {
        if errno == EINTR { continue }
        throw errno == ECONNRESET ? Failure.closed : Failure.system(errno)
      }
      if read == 0 { throw Failure.closed }
      offset += read
    }
  }

  /// Returns once the socket can be read (POLLIN) or written (POLLOUT) as `events` asks,
  /// or is closed; throws `timedOut` at `deadline`.
  private func wait(for events: Int16, until deadline: UInt64) throws {
    while true {
      let now = Self.now()
      guard now < deadline else { throw Failure.timedOut }
      var entry = pollfd(fd: descriptor, events: events, revents: 0)
      let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
      let ready = poll(&entry, 1, milliseconds)
      if ready > 0 { return }
      if ready < 0 && errno != EINTR { throw Failure.system(errno) }
    }
  }

  /// Nanoseconds of the monotonic clock.
  package static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
  }
}
