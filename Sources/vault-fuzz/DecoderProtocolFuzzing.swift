import Foundation
import VaultCore
import VaultDecoder

// The decoder protocol from both ends. `decoder-protocol` is the helper's side: the input is
// a run of frames as a (compromised) parent could send them, queued on a socket and
// answered one by one, reads and all, as the helper does. `decoder-reply` is the parent's
// side: the input is a helper's reply (the first byte picks what the request asked), read
// with the parser the parent trusts nothing without.

/// The helper's side answering the frames in `bytes` (length-prefixed, as on the socket).
func answerFuzzedFrames(_ bytes: [UInt8]) {
  var sockets: [Int32] = [-1, -1]
  guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets) == 0 else { return }
  defer { for descriptor in sockets { close(descriptor) } }
  var size = Int32(4 << 20)
  setsockopt(sockets[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
  setsockopt(sockets[1], SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
  let queued = smallened(bytes)
  guard
    queued.withUnsafeBytes({ send(sockets[0], $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) })
      == queued.count
  else { return }
  shutdown(sockets[0], Int32(SHUT_WR))
  // The parent's end is read while the helper answers, as the parent does: a reply larger
  // than the socket's buffer (a thumbnail's pixels, a read request after it) would
  // otherwise block the helper's send for ever, a hang of the harness and not of the helper.
  let drained = DispatchSemaphore(value: 0)
  let parent = sockets[0]
  Thread.detachNewThread {
    drain(parent)
    drained.signal()
  }
  let helper = DecoderChannel(descriptor: sockets[1])
  var playing: DecoderPlayingSession?
  let pixels = SharedPixelTarget()
  while let frame = try? helper.receive() {
    guard
      (try? DecoderService.answer(frame, on: helper, playing: &playing, pixels: pixels, fault: { _ in }))
        != nil
    else {
      break
    }
  }
  shutdown(sockets[1], Int32(SHUT_WR))
  drained.wait()
}

/// The frames of `bytes`, each `analyse` request's settings and size brought within a
/// fuzzing run's memory (what the helper's RLIMIT_AS bounds in real use), and the faults
/// left out.
private func smallened(_ bytes: [UInt8]) -> [UInt8] {
  var output: [UInt8] = []
  var offset = 0
  while offset + 4 <= bytes.count {
    let header = Array(bytes[offset..<offset + 4])
    guard let length = DecoderFrame.bodyLength(header, limit: 1 << 20), offset + 4 + length <= bytes.count,
      var frame = DecoderFrame(body: Array(bytes[offset + 4..<offset + 4 + length]))
    else { break }
    offset += 4 + length
    if frame.kind == .fault { continue }
    if frame.kind == .analyse || frame.kind == .play, let request = DecoderRequest.parse(frame.payload) {
      // The size comes from the parent, which the helper trusts: it allocates it before
      // the bytes come, and wipes it after. Sizes of gigabytes only fill ASan's quarantine.
      if request.size > 1 << 20 { continue }
      var small = request
      small.thumbnailer.pixelLimit = min(request.thumbnailer.pixelLimit, 4_000_000)
      small.thumbnailer.animationPixelLimit = min(request.thumbnailer.animationPixelLimit, 16_000_000)
      small.thumbnailer.memoryLimit = min(request.thumbnailer.memoryLimit, 64 << 20)
      small.thumbnailer.videoTimeLimit = min(request.thumbnailer.videoTimeLimit, 2)
      frame.payload = small.payload
    }
    output += frame.encoded
  }
  return output
}

/// Reads `descriptor` until its other end is shut.
private func drain(_ descriptor: Int32) {
  var buffer = [UInt8](repeating: 0, count: 1 << 16)
  while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
}

/// The parent's parsers over a reply: the frame, the analysis (for the request the first
/// byte describes), the failure, and a read request.
func parseFuzzedReply(_ bytes: [UInt8]) {
  guard let first = bytes.first else { return }
  let body = Array(bytes.dropFirst())
  _ = DecoderFrame.bodyLength(Array(body.prefix(4)))
  guard let frame = DecoderFrame(body: body) else { return }
  let request = DecoderRequest(
    wants: DecoderRequest.Wants(rawValue: first & 7), thumbnailer: Thumbnailer(), format: .jpeg, name: "fuzz",
    size: 1 << 20, delivery: .bytes)
  _ = DecoderAnalysis(payload: frame.payload, answering: request)
  _ = DecoderFailure.error(from: frame.payload, path: "fuzz", memoryLimit: 512 << 20)
  _ = DecoderReadRequest(frame.payload, size: Int64(first) << 12)
  _ = DecoderPicture(payload: frame.payload, byteCount: 3 << Int(first & 31))
  _ = DecoderPlaying.parse(frame.payload)
  _ = DecoderMovingFrame.parse(frame.payload)
}

/// Seeds: a probe, an `analyse` of a small JPEG sent whole, one read by range with its
/// data queued, and the replies a helper gives.
func writeDecoderSeeds(into folder: String) {
  let jpeg: [UInt8] =
    (try? JPEGEncoder.encode(
      RGBImage(width: 8, height: 8, pixels: .init(repeating: 90, count: 192)), quality: 80)) ?? []
  var request = DecoderRequest(
    wants: [.thumbnail, .details, .liveIdentifier], thumbnailer: Thumbnailer(), format: .jpeg,
    name: "seed.jpg",
    size: Int64(jpeg.count), delivery: .bytes)
  let whole = DecoderFrame(.analyse, request.payload).encoded + DecoderFrame(.file, jpeg).encoded
  request.delivery = .ranges
  let byRange = DecoderFrame(.analyse, request.payload).encoded + DecoderFrame(.data, jpeg).encoded
  let seeds: [(String, [UInt8])] = [
    ("decoder-protocol/probe", DecoderFrame(.probe).encoded),
    ("decoder-protocol/analyse-whole", whole),
    ("decoder-protocol/analyse-by-range", byRange),
  ]
  var replies: [(String, [UInt8])] = []
  let thumbnail = ThumbnailPicture(
    image: RGBImage(width: 8, height: 8, pixels: .init(repeating: 90, count: 192)), width: 8, height: 8,
    orientation: 1)
  let analysis = DecoderAnalysis(
    thumbnail: thumbnail, details: PhotoDetails(cameraMake: "Seed"), liveIdentifier: "SEED-1")
  replies.append(("decoder-reply/analysis", [7] + [DecoderMessageKind.analysis.rawValue] + analysis.payload))
  replies.append(
    (
      "decoder-reply/failure",
      [0, DecoderMessageKind.failure.rawValue]
        + DecoderFailure.payload(for: VaultError.decodeFailed(path: "", reason: "seed"))
    ))
  for (name, bytes) in seeds + replies {
    let path = folder + "/" + name
    try? FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
  }
}
