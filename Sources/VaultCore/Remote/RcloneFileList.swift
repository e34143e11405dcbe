extension Rclone {
  /// Transfers one file at a time, the newest first (by modification time): a journal file's
  /// facts are never newer than the file, so a deletion arrives no later than the `added`
  /// it cancels.
  static let newestFirst = ["--check-first", "--order-by", "modtime,descending", "--transfers", "1"]

  /// Writes `paths` one a line, as `--files-from-raw` reads them, to `file`; returns `file`.
  static func writeFileList(_ paths: some Collection<String>, to file: String) throws -> String {
    try writeFileAtomically(Array(paths.sorted().joined(separator: "\n").utf8) + [0x0A], to: file)
    return file
  }
}
