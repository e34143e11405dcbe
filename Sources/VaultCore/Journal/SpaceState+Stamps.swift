/// The clock of a space's changes: stamps and orders never go back, whatever the clock says.
extension SpaceState {
  /// The order just after `order` (saturating).
  static func after(_ order: Int64) -> Int64 {
    order == .min || order == .max ? order : order + 1
  }

  /// The stamp of a selection or album changed now: the time, or just after the latest stamp seen if
  /// the clock is behind it (a hybrid logical clock), so that the change is never lost.
  func nextStamp(now: Int64) -> Int64 {
    max(now, Self.after(lastStamp))
  }

  /// The order a photo added now takes: the time, or just after the last photo if the
  /// clock is behind it.
  func nextOrder(now: Int64) -> Int64 {
    max(now, Self.after(lastOrder))
  }
}
