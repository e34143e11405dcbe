import Foundation

/// A video or an animation playing in a decoder helper: the parent's side of a playback
/// session. It holds a helper of `pool` for as long as it plays, answers the helper's reads
/// of a video from the stored original (decrypted a chunk at a time, as the demuxer asks),
/// and takes each frame from shared memory. A frame that does not come within the
/// helper's deadline, or a helper that dies, ends playing with the file's refusal; the
/// pool starts a fresh helper for what plays next. Not thread-safe, as `MovingPicture`
/// says: another thread ends it through its `PlaybackCancellation`.
final class DecoderPlayback: MovingPicture {
  let shownSize: PixelSize
  let durationMicroseconds: Int64?
  private let pool: DecoderPool
  private let worker: DecoderWorker
  /// A video's reads; nil for an animation, which the helper holds whole.
  private let input: DecoderInput?
  private let name: String
  private let cancellation: PlaybackCancellation

  /// Opens `input` to play in a helper of `pool`; nil when it is a still (nothing to play).
  static func open(
    _ request: DecoderRequest, input: DecoderInput, pool: DecoderPool, name: String,
    cancellation: PlaybackCancellation
  ) throws -> DecoderPlayback? {
    let worker = try pool.checkOut()
    do {
      let playing = try cancellation.run(helper: worker.pid, name: name) {
        try worker.play(request, input: input, name: name)
      }
      guard let playing else {
        pool.checkIn(worker)
        return nil
      }
      // An animation came whole and stays in the helper: nothing more is read for it.
      return DecoderPlayback(
        playing, pool: pool, worker: worker, input: request.format.isVideo ? input : nil, name: name,
        cancellation: cancellation)
    } catch {
      if cancellation.killedHelper { worker.retire() }
      pool.checkIn(worker)
      throw error
    }
  }

  private init(
    _ playing: DecoderPlaying, pool: DecoderPool, worker: DecoderWorker, input: DecoderInput?, name: String,
    cancellation: PlaybackCancellation
  ) {
    (shownSize, durationMicroseconds) = (playing.shownSize, playing.durationMicroseconds)
    (self.pool, self.worker, self.input, self.name) = (pool, worker, input, name)
    self.cancellation = cancellation
  }

  /// Lets the helper free the file and gives it back to the pool; one that `cancel` killed
  /// is ended here (reaped), and the pool starts a fresh one next time.
  deinit {
    if cancellation.killedHelper { worker.retire() }
    if worker.isAlive { try? worker.stopPlaying(name: name) }
    pool.checkIn(worker)
  }

  /// The helper that plays it (tests read its /proc entries).
  var helperPID: pid_t { worker.pid }

  func nextFrame(scaledTo size: (Int64) -> PixelSize?) throws -> MovingFrame? {
    try request { try worker.nextFrame(input: input, name: name, scaledTo: size) }
  }

  func seek(toMicroseconds microseconds: Int64) throws {
    try request { try worker.seek(toMicroseconds: microseconds, input: input, name: name) }
  }

  /// Tests only: asks the helper that plays to misbehave (`DecoderFault`).
  func fault(_ fault: DecoderFault) throws {
    try request { try worker.fault(fault, name: name) }
  }

  private func request<Result>(_ body: () throws -> Result) throws -> Result {
    guard worker.isAlive else {
      throw VaultError.decoderRefused(path: name, reason: "the decoder stopped without answering")
    }
    return try cancellation.run(helper: worker.pid, name: name, body)
  }
}
