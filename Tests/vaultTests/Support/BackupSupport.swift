import Foundation
import VaultCore
import XCTest

/// The environment of a `vault backup` or `restore` in a test: no user's rclone config, and
/// a state folder (where the manifest is cached) of the test's own.
func backupEnvironment(_ folder: String, _ extra: [String: String] = [:]) -> [String: String] {
  var environment = ["RCLONE_CONFIG": "/nonexistent", "XDG_STATE_HOME": folder + "/state"]
  environment.merge(extra) { $1 }
  return environment
}

/// `count` JPEG photos of seeded noise, each unique, written into `folder`; their paths.
func writeNoisePhotos(
  _ count: Int, into folder: String, named prefix: String, side: Int = 64, random: inout SeededGenerator
) throws -> [String] {
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  return try (0..<count).map { number in
    let pixels = (0..<side * side * 3).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    let path = folder + "/\(prefix)-\(number).jpg"
    let jpeg = try JPEGEncoder.encode(RGBImage(width: side, height: side, pixels: pixels), quality: 90)
    try writeBytes(jpeg, to: path)
    return path
  }
}

/// A file as the file system has it: a copy that was written again has another inode or
/// modification time.
struct FileState: Equatable {
  let size: Int
  let inode: UInt64
  let modified: timespec

  static func == (left: FileState, right: FileState) -> Bool {
    left.size == right.size && left.inode == right.inode && left.modified.tv_sec == right.modified.tv_sec
      && left.modified.tv_nsec == right.modified.tv_nsec
  }
}

/// Every regular file below `folder`, by relative path, with its state.
func fileStates(_ folder: String) -> [String: FileState] {
  var states: [String: FileState] = [:]
  for case let relative as String in FileManager.default.enumerator(atPath: folder)?.allObjects ?? [] {
    var info = stat()
    guard lstat(folder + "/" + relative, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
    states[relative] = FileState(size: Int(info.st_size), inode: UInt64(info.st_ino), modified: info.st_mtim)
  }
  return states
}

/// The paths where two `snapshot`s differ (present in one only, or with other contents): a
/// short failure message where the snapshots themselves would be pages long.
func differences(_ left: [String: String], _ right: [String: String]) -> [String] {
  Set(left.keys).union(right.keys).filter { left[$0] != right[$0] }.sorted()
}
