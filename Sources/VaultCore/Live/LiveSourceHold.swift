import Foundation

/// Moving (`add --move`): the two files of a Live Photo found by name (a still and a MOV of
/// one stem in one folder, among the files of the import) leave their folder together,
/// only once both are in the space. The first of them ready to go is held until its mate
/// is; if the mate fails (or the import stops before it), both stay where they are.
/// Halves paired by identifier alone (different names) are moved each on its own.
struct LiveSourceHold {
  /// Each paired file's mate, both ways.
  private let mates: [String: String]
  /// Files ready to be removed whose mate is not yet, with their content hash.
  private var held: [String: String] = [:]
  /// Files whose mate is ready, or that failed: what became of each.
  private var settled: Set<String> = []
  private var failed: Set<String> = []

  init(files: [String]) {
    var byStem: [String: (still: [String], motion: [String])] = [:]
    for path in files {
      let name = (path as NSString).lastPathComponent
      guard let side = Self.side(named: name) else { continue }
      let key = parentFolder(path) + "/" + (name as NSString).deletingPathExtension.lowercased()
      var group = byStem[key] ?? ([], [])
      if side == .still { group.still.append(path) } else { group.motion.append(path) }
      byStem[key] = group
    }
    var mates: [String: String] = [:]
    for group in byStem.values where group.still.count == 1 && group.motion.count == 1 {
      mates[group.still[0]] = group.motion[0]
      mates[group.motion[0]] = group.still[0]
    }
    self.mates = mates
  }

  /// Which half a file's name says it is: a still (JPEG, HEIC) or a MOV, in any case.
  static func side(named name: String) -> LiveHalf? {
    switch (name as NSString).pathExtension.lowercased() {
    case "jpg", "jpeg", "heic", "heif": return .still
    case "mov": return .motion
    default: return nil
    }
  }

  /// What to do with `path`, stored in the space with `contentHash` and ready to be
  /// removed: the files to remove now (none while its mate is not ready, both once it is),
  /// or the reason to keep it (its mate failed).
  mutating func ready(_ path: String, contentHash: String) -> Outcome {
    guard let mate = mates[path] else { return .remove([(path, contentHash)]) }
    if failed.contains(mate) { return .keep(Self.reason(mate)) }
    guard let mateHash = held.removeValue(forKey: mate) else {
      held[path] = contentHash
      return .remove([])
    }
    settled.insert(mate)
    return .remove([(mate, mateHash), (path, contentHash)])
  }

  /// Notes that `path` was not stored; returns its mate if that was held (it now stays, for
  /// `reason(failedMate:)`).
  mutating func failed(_ path: String) -> String? {
    guard let mate = mates[path] else { return nil }
    failed.insert(path)
    return held.removeValue(forKey: mate) != nil ? mate : nil
  }

  /// The files still held at the end of the import (their mates were never stored), with why.
  mutating func leftOver() -> [(path: String, reason: String)] {
    defer { held.removeAll() }
    return held.keys.sorted().map { ($0, Self.reason(mates[$0]!)) }
  }

  /// Why a file stays: its Live Photo's other half is not in the space.
  static func reason(_ mate: String) -> String {
    "its live photo's other half '\((mate as NSString).lastPathComponent)' was not imported; both stay"
  }

  enum Outcome {
    case remove([(path: String, contentHash: String)])
    case keep(String)
  }
}
