import CVaultSystem
import Foundation

/// One decoder helper process, started with its limits and kept for request after request.
/// Used by one thread at a time (`DecoderPool` hands it out). A helper that dies, overruns
/// its deadline or breaks the protocol is killed and reaped, the request's file is refused
/// naming why, and the worker is spent: the pool starts another.
///
/// `@unchecked Sendable` for that hand-over, which the compiler cannot follow: a worker
/// goes from the pool to one thread and back, and a playback gives its worker back from its
/// deinit, out of a stored property. Its state (whether the helper lives, the shared memory
/// of the picture under way) is touched only by the thread that holds it.
final class DecoderWorker: @unchecked Sendable {
  let limits: DecoderLimits
  let pid: pid_t
  private let channel: DecoderChannel
  /// False once the helper is killed or found dead.
  private(set) var isAlive = true
  /// The shared memory the helper writes the pixels of the request under way into, and
  /// their byte count.
  private(set) var sharedPicture: (memory: SharedPixelMemory, count: Int)?
  /// The shared memory the helper keeps mapped for later pictures, as this side does.
  private var keptMemory: SharedPixelMemory?

  /// Starts the helper at `executable` (tests start a fake one), by default the one
  /// `DecoderExecutable` finds.
  init(limits: DecoderLimits, executable: String? = nil) throws {
    self.limits = limits
    let path = try executable ?? DecoderExecutable.path()
    var sockets: [Int32] = [-1, -1]
    guard vault_make_socket_pair(&sockets) == 0 else { throw VaultError.posix(path) }
    let arguments = [path, "--memory-mib", "\(limits.memoryMiB)", "--cpu-seconds", "\(limits.cpuSeconds)"]
    // Nothing of the parent's environment: the helper needs none, and its backtracer would
    // otherwise try to start a process of its own when it crashes.
    let environment = ["SWIFT_BACKTRACE=enable=no", "MALLOC_ARENA_MAX=1"]
    var child: Int32 = 0
    let status = withCStringArray(arguments) { argv in
      withCStringArray(environment) { envp in vault_spawn_decoder(path, argv, envp, sockets[1], &child) }
    }
    close(sockets[1])
    guard status == 0 else {
      close(sockets[0])
      throw VaultError.io(
        path: path, reason: "cannot start the decoder helper: \(String(cString: strerror(status)))")
    }
    pid = child
    channel = DecoderChannel(descriptor: sockets[0])
  }

  deinit {
    if isAlive { _ = end(overran: false) }
    close(channel.descriptor)
  }

  /// Asks the helper whether it is there; it answers once its limits are set.
  func probe() throws {
    let reply = try exchange(DecoderFrame(.probe), name: DecoderExecutable.name, input: nil)
    guard reply.kind == .ready, reply.payload.isEmpty else { throw malformed(name: DecoderExecutable.name) }
  }

  /// Reads what `request` asks from `input`; `name` stands for the file in errors.
  func analyse(_ request: DecoderRequest, input: DecoderInput, name: String) throws -> DecoderAnalysis {
    let input = input.sendable
    var request = request
    request.size = input.size
    request.delivery = input.delivery
    var reply = try exchange(
      DecoderFrame(.analyse, request.payload), name: name, input: input,
      replyLimit: DecoderAnalysis.frameLimit(longSide: request.thumbnailer.longSide))
    // It holds the thumbnail's pixels, copied out by the parsing.
    defer { reply.payload.wipe() }
    guard reply.kind == .analysis, let analysis = DecoderAnalysis(payload: reply.payload, answering: request)
    else {
      throw malformed(name: name)
    }
    return analysis
  }

  /// Decodes a picture to be shown (`PhotoDecoder`'s, in the helper) and takes its pixels
  /// from the shared memory it wrote them into: one copy, here.
  func picture(_ request: DecoderRequest, input: DecoderInput, name: String) throws -> DecodedPhoto {
    let input = input.sendable
    var request = request
    (request.wants, request.size, request.delivery) = ([.picture], input.size, input.delivery)
    defer { releaseSharedPicture() }
    let reply = try exchange(
      DecoderFrame(.analyse, request.payload), name: name, input: input, sharedMemory: true)
    guard reply.kind == .picture, let shared = sharedPicture,
      let picture = DecoderPicture(payload: reply.payload, byteCount: shared.count)
    else { throw malformed(name: name) }
    return DecodedPhoto(
      image: RGBImage(width: picture.width, height: picture.height, pixels: try sharedPixels(name: name)),
      fullSize: picture.fullSize,
      scaleDenominator: picture.scaleDenominator, details: picture.details)
  }

  /// The pixels the helper wrote into the shared memory of the request under way, copied
  /// out once; the caller checked that they are what its reply says.
  func sharedPixels(name: String) throws -> [UInt8] {
    guard let shared = sharedPicture else { throw malformed(name: name) }
    return shared.memory.copy(count: shared.count)
  }

  /// Tests only: asks the helper to misbehave (`DecoderFault`).
  func fault(_ fault: DecoderFault, name: String) throws {
    _ = try exchange(DecoderFrame(.fault, [fault.rawValue]), name: name, input: nil)
  }

  /// Sends `frame` (with the file's bytes when `input` holds them), answers the helper's
  /// reads from `input`, its `needBuffer` when `sharedMemory` says a picture or a frame is
  /// asked for, and its `frameDecoded` with `frameSize` (when playing), and returns its
  /// reply, of at most `replyLimit` bytes; a `failure` is thrown as the error it carries.
  /// Anything else ends the helper and throws its refusal. The deadline is the request's,
  /// whatever it exchanges.
  func exchange(
    _ frame: DecoderFrame, name: String, input: DecoderInput?, sharedMemory: Bool = false,
    frameSize: ((Int64) -> PixelSize?)? = nil, replyLimit: Int = DecoderFrame.maxLength
  ) throws -> DecoderFrame {
    precondition(isAlive, "a decoder worker is used after its helper ended")
    let deadline = DecoderChannel.now() + limits.deadlineNanoseconds
    var readError: Error?
    do {
      switch input {
      case .bytes(let bytes)?:
        try channel.send(frame, deadline: deadline)
        try channel.send(
          DecoderFrame(.file), trailing: UnsafeRawBufferPointer(start: bytes.baseAddress, count: bytes.count),
          deadline: deadline)
      case .sealed(let copy)?:
        try channel.send(frame, descriptor: copy.descriptor, deadline: deadline)
      case .file(let file)?:
        try channel.send(frame, descriptor: file.descriptor, deadline: deadline)
      default:
        try channel.send(frame, deadline: deadline)
      }
      while true {
        let reply = try channel.receive(limit: replyLimit, deadline: deadline)
        switch reply.kind {
        case .read:
          try answerRead(reply.payload, input: input, name: name, deadline: deadline, readError: &readError)
        case .needBuffer:
          // Shared memory is made for a picture only: asked for otherwise, it would be
          // memory the parent holds at a helper's word.
          guard sharedMemory else { throw malformed(name: name) }
          try handOverSharedMemory(reply.payload, name: name, deadline: deadline)
        case .frameDecoded:
          guard let frameSize, let time = DecoderFrameTime.parse(reply.payload) else {
            throw malformed(name: name)
          }
          try channel.send(
            DecoderFrame(.frameSize, DecoderFrameSize.payload(frameSize(time))), deadline: deadline)
        case .failure:
          if let readError { throw readError }
          throw DecoderFailure.error(from: reply.payload, path: name, memoryLimit: limits.memoryBytes)
            ?? malformed(name: name)
        case .dying:
          throw refusal(name: name, overran: false, addressSpaceFull: reply.payload.first == 1)
        case .ready, .analysis, .picture, .playing, .frame:
          return reply
        default:
          throw malformed(name: name)
        }
      }
    } catch let failure as DecoderChannel.Failure {
      if failure == .malformed { throw malformed(name: name) }
      throw refusal(name: name, overran: failure == .timedOut, addressSpaceFull: false)
    }
  }

  /// Answers a helper's `read` of the file by range with its bytes, or with `dataFailed`
  /// when reading them failed (`readError` keeps why, for the refusal that follows).
  private func answerRead(
    _ payload: [UInt8], input: DecoderInput?, name: String, deadline: UInt64, readError: inout Error?
  ) throws {
    guard case .ranges(let size, let read)? = input, let wanted = DecoderReadRequest(payload, size: size)
    else {
      throw malformed(name: name)
    }
    do {
      var data = DecoderFrame(.data, try wanted.perform(read))
      defer { data.payload.wipe() }
      try channel.send(data, deadline: deadline)
    } catch let error as DecoderChannel.Failure {
      throw error
    } catch {
      readError = error
      try channel.send(DecoderFrame(.dataFailed), deadline: deadline)
    }
  }

  /// Answers a `needBuffer` (within the helper's memory limit) with the shared memory the
  /// helper keeps when it is large enough, else with new memory (sealed: its size cannot
  /// change under this process's reading), kept for later pictures unless it is larger
  /// than `DecoderLimits.keptSharedMemoryBytes`.
  private func handOverSharedMemory(_ payload: [UInt8], name: String, deadline: UInt64) throws {
    let count = payload.withUnsafeBytes { buffer -> Int? in
      var reader = ByteReader(buffer)
      return reader.remaining == 8 ? reader.integer(in: 3...Int64(limits.memoryBytes)).map(Int.init) : nil
    }
    guard sharedPicture == nil, let count else { throw malformed(name: name) }
    if let kept = keptMemory, kept.capacity >= count {
      sharedPicture = (kept, count)
      try channel.send(DecoderFrame(.buffer, [SharedMemoryHandOver.reuse.rawValue]), deadline: deadline)
      return
    }
    guard let memory = SharedPixelMemory(capacity: count) else { throw VaultError.posix(name) }
    let handOver: SharedMemoryHandOver = count <= limits.keptSharedMemoryBytes ? .keep : .once
    if handOver == .keep { keptMemory = memory }
    sharedPicture = (memory, count)
    try channel.send(
      DecoderFrame(.buffer, [handOver.rawValue]), descriptor: memory.descriptor, deadline: deadline)
  }

  /// Lets go of the shared memory of the picture under way, if any: memory kept for later
  /// pictures stays; other memory is freed with its last descriptor and mapping.
  func releaseSharedPicture() {
    sharedPicture = nil
  }

  /// Ends a helper that broke the protocol, and says so.
  func malformed(name: String) -> VaultError {
    _ = end(overran: false)
    return .decoderRefused(path: name, reason: "the decoder sent a malformed reply")
  }

  /// Ends the helper and names why it ended in the refusal of `name`.
  private func refusal(name: String, overran: Bool, addressSpaceFull: Bool) -> VaultError {
    var death = end(overran: overran)
    death.addressSpaceFull = death.addressSpaceFull || addressSpaceFull
    return .decoderRefused(path: name, reason: death.reason(limits: limits))
  }

  /// Kills the helper (if it still runs) and reaps it; returns how it ended, with its last
  /// word if the socket still holds one.
  private func end(overran: Bool) -> DecoderDeath {
    isAlive = false
    releaseSharedPicture()
    keptMemory = nil
    kill(pid, SIGKILL)
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    // The helper is gone: whatever it wrote is in the socket already.
    let lastWord = try? channel.receive(limit: 16, deadline: DecoderChannel.now() + 1_000_000)
    let full = lastWord?.kind == .dying && lastWord?.payload.first == 1
    return DecoderDeath(status: status, overran: overran, addressSpaceFull: full)
  }

  /// Whether the helper has used half its processor time (RLIMIT_CPU counts a whole life,
  /// and a long import would reach it): the pool then ends it and starts a fresh one.
  var isWornOut: Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let afterName = stat.range(of: ") ", options: .backwards)
    else { return false }
    // Fields from the state on: utime and stime are the 12th and 13th (clock ticks).
    let fields = stat[afterName.upperBound...].split(separator: " ")
    guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return false }
    return (user + system) / max(1, sysconf(Int32(_SC_CLK_TCK))) >= limits.cpuSeconds / 2
  }

  /// Ends a helper that is no longer wanted.
  func retire() {
    if isAlive { _ = end(overran: false) }
  }
}
