import Foundation
import Synchronization
import VaultCore

/// Kitty uploads of the pictures sent ahead (the neighbours at fit, the current photo's
/// original), made on a background thread. Making one means shrinking a photo and writing
/// megabytes of its pixels in Base64 (libsodium's, constant time and several times slower
/// than a table): tens of milliseconds that would otherwise sit between a key and its frame.
/// The viewer writes an upload once it is made and no key is waiting.
///
/// An upload holds a photo's pixels: one made and no longer wanted is wiped as it is
/// dropped, and whoever takes one wipes it once written (`FullScreenTerminal.flush` does).
/// Only the uploads wanted in the last frame are kept or made, one at a time.
final class KittyUploadsAhead: Sendable {
  /// A picture to upload as kitty image `id`; `picture` is called on the background thread.
  struct Job: Sendable {
    let key: PictureKey
    let id: UInt32
    let picture: @Sendable () -> Picture
  }

  private struct State {
    var waiting: [Job] = []
    var making: PictureKey?
    var made: [PictureKey: (id: UInt32, bytes: [UInt8])] = [:]
    var working = false
  }
  private let state = Mutex(State())
  private let queue = DispatchQueue(label: "vault.kitty-uploads-ahead", qos: .userInitiated)
  private let madeOne: @Sendable () -> Void

  /// `madeOne` is called on the background thread after each upload made, so that the
  /// owner can write it.
  init(madeOne: @escaping @Sendable () -> Void) {
    self.madeOne = madeOne
  }

  /// Whether `key`'s upload is made, being made or waiting to be.
  func has(_ key: PictureKey) -> Bool {
    state.withLock { state in
      state.made[key] != nil || state.making == key || state.waiting.contains { $0.key == key }
    }
  }

  /// Makes `job`'s upload after those already asked for.
  func make(_ job: Job) {
    let start = state.withLock { state -> Bool in
      state.waiting.append(job)
      if state.working { return false }
      state.working = true
      return true
    }
    if start { queue.async { self.work() } }
  }

  /// The upload of `key`, handed over, if it is made.
  func take(_ key: PictureKey) -> (id: UInt32, bytes: [UInt8])? {
    state.withLock { $0.made.removeValue(forKey: key) }
  }

  /// Stops making `key`'s upload (it is being sent another way).
  func forget(_ key: PictureKey) {
    let dropped = state.withLock { state -> [UInt8]? in
      state.waiting.removeAll { $0.key == key }
      if state.making == key { state.making = nil }
      return state.made.removeValue(forKey: key)?.bytes
    }
    dropped?.wipeShared()
  }

  /// Drops every upload, made or to make, whose key `wanted` does not hold.
  func keep(only wanted: (PictureKey) -> Bool) {
    let dropped = state.withLock { state -> [[UInt8]] in
      state.waiting.removeAll { !wanted($0.key) }
      if let making = state.making, !wanted(making) { state.making = nil }
      let dropped = state.made.filter { !wanted($0.key) }
      for key in dropped.keys { state.made[key] = nil }
      return dropped.values.map(\.bytes)
    }
    for bytes in dropped { bytes.wipeShared() }
  }

  /// Makes the waiting uploads, first asked first, until none is left. One no longer wanted
  /// once made (dropped or taken meanwhile) is wiped.
  private func work() {
    while true {
      let next = state.withLock { state -> Job? in
        guard !state.waiting.isEmpty else {
          state.working = false
          return nil
        }
        let job = state.waiting.removeFirst()
        state.making = job.key
        return job
      }
      guard let job = next else { return }
      let bytes = Self.compressedUpload(id: job.id, job.picture())
      let kept = state.withLock { state -> Bool in
        guard state.making == job.key else { return false }
        state.making = nil
        state.made[job.key] = (job.id, bytes)
        return true
      }
      if kept { madeOne() } else { bytes.wipeShared() }
    }
  }

  /// The bytes that upload `picture`'s raw pixels as kitty image `id`; pixels made for it
  /// (a photo shrunk) are wiped once encoded.
  private static func rawUpload(id: UInt32, _ picture: Picture) -> [UInt8] {
    switch picture {
    case .photo(let image): return KittyGraphics.transmit(id: id, image: image)
    case .shrunk(let image):
      defer { image.pixels.wipeShared() }
      return KittyGraphics.transmit(id: id, image: image)
    case .gridRow(let row): return KittyGraphics.transmit(id: id, rgba: row)
    }
  }

  /// The upload of a picture: as PNG, 40% of the bytes of its raw pixels (what a page costs
  /// in kitty, and over ssh); raw if libpng fails.
  static func compressedUpload(id: UInt32, _ picture: Picture) -> [UInt8] {
    let (pixels, size, channels, filter): ([UInt8], PixelSize, Int, PNGEncoder.Filter)
    switch picture {
    case .photo(let image), .shrunk(let image):
      (pixels, size, channels, filter) = (image.pixels, picture.size, 3, .average)
    case .gridRow(let row): (pixels, size, channels, filter) = (row.pixels, picture.size, 4, .sub)
    }
    guard
      var png = PNGEncoder.encode(
        pixels, width: size.width, height: size.height, channels: channels, filter: filter)
    else {
      return rawUpload(id: id, picture)
    }
    defer { png.wipe() }
    if case .shrunk(let image) = picture { image.pixels.wipeShared() }
    return KittyGraphics.transmit(id: id, png: png, width: size.width, height: size.height)
  }
}
