/// Reads byte ranges of files on a remote (`rclone cat --offset --count`, see
/// `RcloneRangeReader`); tests give one over local files to count what is read.
package protocol RemoteRangeReader: Sendable {
  /// The remote as the user typed it: its files' paths are relative to it, and errors
  /// name it.
  var remote: String { get }

  /// `count` bytes of the file at `path` from `offset`, fewer only at its end. Throws an
  /// error naming the remote when it cannot be reached or the file is not there.
  func read(_ path: String, offset: Int, count: Int) throws -> [UInt8]
}
