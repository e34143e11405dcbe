import Foundation

/// A folder of the vault that a recovery key opens, as `vault recover` names it when the key
/// opens more than one: copies of one space kept apart (a restored backup, a sync engine's
/// kept conflict, a folder a peer planted) hold one master key and differ in what their
/// journals say, and which of them the user goes on with is theirs to choose. A copy that
/// could not be opened (another command holds it, a damaged index, an I/O error) is one of
/// them all the same, named with the reason.
public struct RecoverableFolder: Equatable, Sendable {
  public var path: String
  public var photos: Int
  /// The latest import or change its journal records (nil for a space without a journal,
  /// or with nothing in it yet).
  public var lastChange: Timestamp?
  /// Why the folder could not be opened (then `photos` and `lastChange` say nothing).
  public var notOpenedBecause: String?

  init(_ space: Space) {
    path = space.directory
    photos = space.entries.count
    lastChange = space.journal.flatMap { Self.latest($0.state) }
  }

  init(path: String, notOpenedBecause reason: String) {
    self.path = path
    photos = 0
    notOpenedBecause = reason
  }

  /// `'path' (4 photos, last changed <date>)`, with `date` as the caller writes dates (the
  /// change is left out without it), or `'path' (not opened: <reason>)`.
  public func described(date: ((Timestamp) -> String)? = nil) -> String {
    if let notOpenedBecause { return "'\(path)' (not opened: \(notOpenedBecause))" }
    var details = "\(photos) photo\(photos == 1 ? "" : "s")"
    if let lastChange, let date { details += ", last changed " + date(lastChange) }
    return "'\(path)' (\(details))"
  }

  /// The later of a state's last import order and last stamp: both are nanoseconds since
  /// 1970, as the writer's clock read them.
  private static func latest(_ state: SpaceState) -> Timestamp? {
    let latest = max(state.lastOrder, state.lastStamp)
    guard latest != .min else { return nil }
    let (seconds, nanoseconds) = latest.quotientAndRemainder(dividingBy: 1_000_000_000)
    return nanoseconds < 0
      ? Timestamp(seconds: seconds - 1, nanoseconds: Int32(nanoseconds + 1_000_000_000))
      : Timestamp(seconds: seconds, nanoseconds: Int32(nanoseconds))
  }
}
