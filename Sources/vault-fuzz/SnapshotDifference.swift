// The `snapshot` target: a differential check of how a space applies its snapshots (photos
// listed undecoded, read through a position index, read and applied whole or a part at a
// time as the bytes arrive, and decrypted from a file on another thread while applied, as a
// big snapshot is when a space opens) against plain decoding and applying of the same
// entries. Input: up to three
// snapshot plaintexts, each after a 2-byte big-endian length (two snapshots side by side
// are a union sync's). Any difference traps. After the security review's harness.
import Foundation
import VaultCore

/// The snapshots framed in `bytes`.
private func framedSnapshots(_ bytes: [UInt8]) -> [[UInt8]] {
  var snapshots: [[UInt8]] = []
  var offset = 0
  while offset + 2 <= bytes.count, snapshots.count < 3 {
    let end = min(bytes.count, offset + 2 + (Int(bytes[offset]) << 8 | Int(bytes[offset + 1])))
    snapshots.append(Array(bytes[offset + 2..<end]))
    offset = end
  }
  return snapshots
}

/// "applied", or the error that refused the snapshot `plaintext`, taken `step` bytes at a
/// time when given.
private func outcome(into state: inout SpaceState, _ plaintext: [UInt8], inSteps step: Int? = nil) -> String {
  do {
    try state.applySnapshot(try SnapshotBytes(plaintext), inSteps: step)
    return "applied"
  } catch {
    return "\(error)"
  }
}

/// "applied", or the error that refused the snapshot `plaintext`, written to a snapshot blob
/// under the fuzzing key and read back as `SpaceJournal` reads a big one: decrypted and
/// scanned on another thread while its items are applied on this one.
private func outcomeDecryptedAlongside(into state: inout SpaceState, _ plaintext: [UInt8]) -> String {
  let id = BlobID(hex: "0f0e0d0c0b0a09080706050403020100")!
  let key = master.blobKey(kind: .snapshot, id: id)
  let path = scratch + "-snapshot"
  guard let file = try? TemporaryFile(in: (scratch as NSString).deletingLastPathComponent),
    let writer = try? BlobWriter(kind: .snapshot, key: key, output: file),
    (try? writer.write(plaintext)) != nil, (try? writer.finish()) != nil, (try? file.replace(path)) != nil
  else { fatalError("cannot write a snapshot to \(path)") }
  var application = SpaceState.SnapshotApplication(applyingTo: state)
  do {
    let reader = try BlobReader(path: path, kind: .snapshot, key: key, what: "fuzz")
    _ = try SnapshotBytes.read(from: reader, limit: 1 << 24, alongsideFrom: 0) { snapshot, items in
      application.apply(items, of: snapshot)
    }
  } catch {
    return "\(error)"
  }
  state = application.state
  return "applied"
}

func checkSnapshotDifference(_ bytes: [UInt8]) {
  var eager = SpaceState()
  var checkedHere = SpaceState()
  var checkedAlongside = SpaceState()
  // A snapshot blob pads its plaintext with zero bytes to its Padmé length: what the
  // decrypting path reads is compared with the same bytes applied here.
  var (paddedHere, decryptedAlongside) = (SpaceState(), SpaceState())
  for plaintext in framedSnapshots(bytes) {
    // Plain decoding, and the padding a snapshot must have.
    var decoded = eager
    let eagerLength = plaintext.withUnsafeBytes { buffer in
      try? JournalEntry.decodeAll(buffer) { decoded.apply($0) }
    }
    let sound = eagerLength.map { plaintext.count == Padme.paddedLength($0) } ?? false
    if sound { eager = decoded }
    // As a space applies them: whole, or a part at a time as the bytes arrive (a step taken
    // from the input), as a big snapshot's are while decrypted.
    let step = 1 + Int(plaintext.first ?? 0) % 64
    let here = outcome(into: &checkedHere, plaintext)
    let alongside = outcome(into: &checkedAlongside, plaintext, inSteps: step)
    precondition(here == alongside, "the two checks differ: \(here) and \(alongside)")
    let padded =
      plaintext + [UInt8](repeating: 0, count: Padme.paddedLength(plaintext.count) - plaintext.count)
    let paddedOutcome = outcome(into: &paddedHere, padded)
    let decrypted = outcomeDecryptedAlongside(into: &decryptedAlongside, plaintext)
    precondition(
      paddedOutcome == decrypted, "decrypting alongside differs: \(paddedOutcome) and \(decrypted)")
    precondition(sound == (here == "applied"), "plain decoding took it: \(sound); the space: \(here)")
  }
  precondition(
    paddedHere.entries() == decryptedAlongside.entries(), "decrypting alongside gives other photos")
  precondition(
    paddedHere.compacted() == decryptedAlongside.compacted(), "decrypting alongside gives another state")
  for state in [checkedHere, checkedAlongside] {
    let (expected, entries) = (eager.entries(), state.entries())
    precondition(expected == entries, "the photos differ")
    for position in entries.indices {
      let record = entries.record(at: position)
      precondition(entries.importedAt(at: position) == record.importedAt, "an import time read alone differs")
      precondition(entries.taken(at: position) == record.taken, "a date taken read alone differs")
      precondition(state.hasDetails(record.id) == eager.hasDetails(record.id), "details known differ")
    }
    precondition(state.compacted() == eager.compacted(), "the compactions differ")
    precondition(PhotoDates.of(entries, zone: .gmt) == PhotoDates.of(Array(expected), zone: .gmt))
  }
}

/// Seeds: one snapshot as a compaction writes it, one in another order with a photo added
/// twice and details before their photo, and the two side by side both ways.
func writeSnapshotSeeds(into folder: String) {
  func record(_ number: UInt8, _ name: String) -> PhotoRecord {
    PhotoRecord(
      id: BlobID(hex: String(repeating: String(format: "%02x", number), count: 16))!, name: name, bytes: 3,
      format: .jpeg, width: 2, height: 1, orientation: 1, modifiedAt: Timestamp(seconds: 5),
      importedAt: Timestamp(seconds: Int64(number)), contentHash: String(repeating: "0", count: 64))
  }
  let (first, second, third) = (record(1, "a.jpg"), record(2, "b.jpg"), record(3, "c.jpg"))
  let details = PhotoDetails(
    taken: CaptureTime(localSeconds: 1_000_000, utcOffsetMinutes: 60), cameraMake: "Make")
  var state = SpaceState()
  for entry: JournalEntry in [
    .added(first, order: 1), .added(second, order: 2), .details(second.id, details, stamp: 3),
    .selection(first.id, selected: true, stamp: 4),
  ] {
    state.apply(entry)
  }
  let other: [JournalEntry] = [
    .details(third.id, details, stamp: 5), .added(third, order: 3), .added(first, order: 0),
    .deleted(second.id), .details(first.id, PhotoDetails(), stamp: 6),
  ]
  func framed(_ entries: [JournalEntry]) -> [UInt8] {
    let encoded = JournalEntry.encodeAll(entries, padded: true)
    return [UInt8(encoded.count >> 8), UInt8(encoded.count & 0xFF)] + encoded
  }
  let seeds = [
    "compacted": framed(state.compacted()), "other": framed(other),
    "both": framed(state.compacted()) + framed(other),
    "both-reversed": framed(other) + framed(state.compacted()),
  ]
  mkdir(folder + "/snapshot", 0o700)
  for (name, bytes) in seeds {
    _ = FileManager.default.createFile(atPath: folder + "/snapshot/" + name, contents: Data(bytes))
  }
}
