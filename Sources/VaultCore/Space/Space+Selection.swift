import Foundation

// Choosing photos: the selection is kept in the journal.
extension Space {
  /// Sets the selection of the photos at `positions` (0-based) to `selected`.
  /// Only what changes is written, and only those entries are updated: selecting a few
  /// photos of a big space costs a few entries.
  func setSelection(_ positions: [Int], to selected: Bool) throws {
    try setSelections(positions.map { ($0, selected) })
  }

  /// Sets the selection of each photo in `changes` (0-based positions; for a position
  /// given twice, the last), all in one write, so that a change such as inverting the
  /// selection is never left half done.
  func setSelections(_ changes: [(position: Int, selected: Bool)]) throws {
    var wanted: [Int: Bool] = [:]
    for change in changes { wanted[change.position] = change.selected }
    let changing = wanted.filter { entries.isSelected(at: $0.key) != $0.value }.sorted { $0.key < $1.key }
    try appendSelections(changing.map { ($0.key, $0.value) })
  }

  private func appendSelections(_ changes: [(position: Int, selected: Bool)]) throws {
    let journal = try requireJournal()
    guard !changes.isEmpty else { return }
    let stamp = journal.state.nextStamp(now: Timestamp.now().nanosecondsSince1970)
    try journal.append(
      changes.map { .selection(entries.id(at: $0.position), selected: $0.selected, stamp: stamp) })
    var updated = entries
    for change in changes {
      updated.setSelected(journal.state.isSelected(updated.id(at: change.position)), at: change.position)
    }
    publishSelection(updated)
    compactJournalIfDue()
  }
}
