import Foundation

extension Rclone {
  /// A local path as rclone must be given it: absolute, since rclone takes a relative path
  /// with a ':' in it (`cam:2024`, `out:1`) for a remote named by what comes before.
  static func localOperand(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
  }
}
