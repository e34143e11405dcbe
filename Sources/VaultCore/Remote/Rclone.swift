import Foundation

/// rclone, the one engine that carries a vault's files to and from a remote: run with an
/// argument vector (never through a shell), stdin on /dev/null, never handed a password
/// (remotes come from the user's rclone config, `RCLONE_CONFIG_*` variables or a
/// connection string), and killed by a watchdog when it shows no sign of life.
public struct Rclone: Sendable {
  /// Debian's rclone.
  public static let defaultExecutable = "/usr/bin/rclone"
  /// Given to every run: a remote that is gone answers within a bounded time, never hangs;
  /// rclone asks nothing on a terminal it does not have.
  static let commonOptions = [
    "--contimeout", "15s", "--timeout", "60s", "--retries", "1", "--low-level-retries", "3",
    "--ask-password=false",
  ]
  /// Given to the transfers whose bytes vault hashes itself (a backup's blobs, MD5 recorded
  /// in the manifest; a restore's files, each checked against the manifest after): rclone
  /// then skips its own check after each file, which over SFTP is one `md5sum` run over ssh
  /// per file (200 small files: 26 s against 1.7 s) and on the local backend a second read.
  static let vaultHashesItself = ["--ignore-checksum"]
  /// What a transfer adds to report its progress on stderr, a JSON line a second.
  static let progressOptions = ["--use-json-log", "--stats", "1s", "--stats-log-level", "NOTICE", "-v"]

  /// The rclone run: `$VAULT_RCLONE` (tests), else Debian's.
  public let executable: String
  /// rclone's environment, "NAME=value": vault's, without its password.
  let environment: [String]
  /// Seconds without output or progress after which rclone is killed: `$VAULT_RCLONE_SILENCE`
  /// (tests), else 5 minutes, far beyond rclone's own timeouts.
  public var silenceLimit: Double

  public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
    executable = environment["VAULT_RCLONE"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultExecutable
    silenceLimit =
      environment["VAULT_RCLONE_SILENCE"].flatMap(Double.init).flatMap { $0 > 0 ? $0 : nil } ?? 300
    self.environment = environment.filter { $0.key != "VAULT_PASSWORD" }.map { "\($0.key)=\($0.value)" }
  }

  /// Runs `rclone VERB <common options> OPTIONS -- OPERANDS` and returns what it wrote on
  /// stdout; `remote` (as the user typed it) names the remote in errors.
  @discardableResult
  public func run(
    _ verb: String, _ options: [String] = [], _ operands: [String], remote: String, outputLimit: Int = Int.max
  ) throws -> [UInt8] {
    try execute(verb, options, operands, remote: remote, outputLimit: outputLimit) { _ in nil }.output
  }

  /// Reads a file's bytes (`rclone cat`, with `--offset O --count N` for a range) into a
  /// buffer of at most `limit` bytes: more is an error, and rclone is stopped at once.
  public func read(_ options: [String] = [], _ path: String, remote: String, limit: Int) throws -> [UInt8] {
    try execute("cat", options, [path], remote: remote, outputLimit: limit) { _ in nil }.output
  }

  /// Runs a transfer (`copy`, `move`…) with its progress on stderr, telling `progress` of
  /// each stats line as it comes; returns the last.
  @discardableResult
  public func transfer(
    _ verb: String, _ options: [String] = [], _ operands: [String], remote: String,
    progress: (RcloneProgress) -> Void = { _ in }
  ) throws -> RcloneProgress {
    let outcome = try execute(
      verb, Self.progressOptions + options, operands, remote: remote, outputLimit: 1 << 20
    ) {
      progress($0)
      return $0
    }
    return outcome.progress ?? RcloneProgress()
  }

  /// Runs a transfer as `transfer` does, and also says which files rclone reports it
  /// copied or moved (by path relative to the source): a file listed in `--files-from-raw`
  /// that is gone when rclone comes to it is skipped without a word, and is not among them.
  public func transferNamingFiles(
    _ verb: String, _ options: [String] = [], _ operands: [String], remote: String,
    progress: (RcloneProgress) -> Void = { _ in }
  ) throws -> (progress: RcloneProgress, files: [String]) {
    let outcome = try execute(
      verb, Self.progressOptions + options, operands, remote: remote, outputLimit: 1 << 20
    ) {
      progress($0)
      return $0
    }
    return (outcome.progress ?? RcloneProgress(), outcome.transferred)
  }

  /// What one run gave: stdout, its last progress and the files it said it transferred.
  struct Outcome {
    var output: [UInt8]
    var progress: RcloneProgress?
    var transferred: [String] = []
  }

  /// Runs rclone; `onProgress` is told each stats line, and returns it when it counts as a
  /// sign of life.
  func execute(
    _ verb: String, _ options: [String], _ operands: [String], remote: String, outputLimit: Int,
    onProgress: (RcloneProgress) -> RcloneProgress?
  ) throws -> Outcome {
    let arguments = ["rclone", verb] + Self.commonOptions + options + ["--"] + operands
    let process = ToolProcess(
      path: executable, arguments: arguments, environment: environment, silenceLimit: silenceLimit,
      outputLimit: outputLimit)
    var log = RcloneLog()
    var lastProgress: RcloneProgress?
    let result = process.run { line in
      guard let progress = log.take(line) else { return true }
      let moved = progress.advanced(since: lastProgress)
      lastProgress = progress
      _ = onProgress(progress)
      return moved
    }
    let outcome: ToolProcess.Outcome
    switch result {
    case .failure(let failure):
      if failure.code == ENOENT || failure.code == EACCES {
        throw RemoteError.rcloneMissing(path: executable)
      }
      throw RemoteError.failed(
        remote: remote, reason: "cannot start rclone: \(String(cString: strerror(failure.code)))")
    case .success(let ended): outcome = ended
    }
    try check(outcome, log: log, operands: operands, remote: remote, outputLimit: outputLimit)
    return Outcome(output: outcome.output, progress: lastProgress, transferred: log.transferred)
  }

  private func check(
    _ outcome: ToolProcess.Outcome, log: RcloneLog, operands: [String], remote: String, outputLimit: Int
  ) throws {
    let path = Self.relativePath(of: operands, to: remote)
    if outcome.overflowed { throw RemoteError.tooLong(remote: remote, path: path, limit: outputLimit) }
    if outcome.silent {
      throw RemoteError.unreachable(
        remote: remote, reason: String(format: "no answer for %g s; rclone was stopped", silenceLimit))
    }
    guard outcome.status != 0 else { return }
    // rclone's exit statuses: 3 a folder not found, 4 a file not found.
    if outcome.status == 3 || outcome.status == 4 { throw RemoteError.notFound(remote: remote, path: path) }
    let reason =
      log.lastError ?? log.lastLine
      ?? (outcome.status > 128
        ? "rclone was stopped by signal \(outcome.status - 128)"
        : "rclone failed (exit status \(outcome.status))")
    throw Self.isUnreachable(reason)
      ? RemoteError.unreachable(remote: remote, reason: reason)
      : RemoteError.failed(remote: remote, reason: reason)
  }

  /// Whether rclone's reason says the remote could not be reached at all.
  static func isUnreachable(_ reason: String) -> Bool {
    let words = [
      "couldn't connect", "connection refused", "dial tcp", "i/o timeout", "no such host", "handshake",
      "NewFs", "network is unreachable", "didn't find section in config file", "no route to host",
      "connection reset",
    ]
    return words.contains { reason.localizedCaseInsensitiveContains($0) }
  }

  /// The first operand on the remote, relative to it (what a "not found" names).
  static func relativePath(of operands: [String], to remote: String) -> String {
    guard let operand = operands.first(where: { $0.hasPrefix(remote) }) ?? operands.last else { return "" }
    guard operand.hasPrefix(remote) else { return operand }
    return String(operand.dropFirst(remote.count).drop { $0 == "/" })
  }
}
