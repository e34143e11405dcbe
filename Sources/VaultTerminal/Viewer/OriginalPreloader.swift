import Foundation
import Synchronization
import VaultCore

/// Agony's lazy loading for the photo pager: originals are decoded on a background thread,
/// the one on screen first and then its neighbours, and at most `capacity` decoded
/// originals are kept (a 12-megapixel photo takes 36 MB decoded).
///
/// The owner says what it wants, in order, with `want`; whatever is held and no longer
/// wanted is dropped at once, so memory stays bounded however fast the user pages.
public final class OriginalPreloader: Sendable {
  /// One photo wanted, decoded to at least `minimumSize` pixels (as shown), or at full
  /// resolution when nil.
  public struct Request: Equatable, Sendable {
    public var record: PhotoRecord
    public var minimumSize: PixelSize?

    public init(record: PhotoRecord, minimumSize: PixelSize?) {
      self.record = record
      self.minimumSize = minimumSize
    }
  }

  public typealias Load = @Sendable (Request) throws -> DecodedPhoto

  public let capacity: Int
  private let load: Load
  private let finished: @Sendable (BlobID) -> Void
  private let queue = DispatchQueue(label: "vault.original-preloader", qos: .userInitiated)

  private struct State {
    var wanted: [Request] = []
    var held: [BlobID: DecodedPhoto] = [:]
    var failures: [BlobID: Error] = [:]
    var working = false
  }
  private let state = Mutex(State())

  /// `load` decodes one original (on the background thread); `finished` is called there
  /// after each decode, so the owner can redraw (the photo's id is passed).
  public init(capacity: Int = 3, load: @escaping Load, finished: @escaping @Sendable (BlobID) -> Void) {
    precondition(capacity >= 1)
    self.capacity = capacity
    self.load = load
    self.finished = finished
  }

  /// The decoded original of `id`, if one is held.
  public func decoded(_ id: BlobID) -> DecodedPhoto? {
    state.withLock { $0.held[id] }
  }

  /// Why `id` could not be decoded, if it could not.
  public func failure(_ id: BlobID) -> Error? {
    state.withLock { $0.failures[id] }
  }

  /// The ids held now (for tests and the memory bound).
  public var heldIDs: Set<BlobID> {
    state.withLock { Set($0.held.keys) }
  }

  /// Whether `photo` is at least as fine as `request` needs.
  static func satisfies(_ photo: DecodedPhoto, _ request: Request) -> Bool {
    guard let minimum = request.minimumSize else { return photo.scaleDenominator == 1 }
    return photo.scaleDenominator == 1
      || (photo.image.width >= min(minimum.width, photo.fullSize.width)
        && photo.image.height >= min(minimum.height, photo.fullSize.height))
  }

  /// Wants `requests`, most wanted first; only the first `capacity` are kept or decoded.
  /// Held photos not among them are dropped now; the rest are decoded in order.
  public func want(_ requests: [Request]) {
    var unique: [Request] = []
    for request in requests where !unique.contains(where: { $0.record.id == request.record.id }) {
      unique.append(request)
    }
    let kept = Array(unique.prefix(capacity))
    let ids = Set(kept.map(\.record.id))
    let start = state.withLock { state -> Bool in
      state.wanted = kept
      state.held = state.held.filter { ids.contains($0.key) }
      state.failures = state.failures.filter { ids.contains($0.key) }
      if state.working { return false }
      state.working = true
      return true
    }
    if start { queue.async { self.work() } }
  }

  /// Decodes what is wanted and not yet held finely enough, one photo at a time, most
  /// wanted first, until nothing is left; a new `want` changes the list in between.
  private func work() {
    while true {
      let next = state.withLock { state -> Request? in
        let request = state.wanted.first { request in
          if state.failures[request.record.id] != nil { return false }
          guard let held = state.held[request.record.id] else { return true }
          return !Self.satisfies(held, request)
        }
        if request == nil { state.working = false }
        return request
      }
      guard let request = next else { return }
      let outcome = Result { try load(request) }
      state.withLock { state in
        // Kept only if still wanted: the user may have paged on meanwhile.
        guard state.wanted.contains(where: { $0.record.id == request.record.id }) else { return }
        switch outcome {
        case .success(let photo): state.held[request.record.id] = photo
        case .failure(let error): state.failures[request.record.id] = error
        }
      }
      finished(request.record.id)
    }
  }
}
