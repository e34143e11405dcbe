import Foundation
import XCTest

/// A real S3 API server: moto in server mode (PyPI's `moto[server]`; Debian packages no S3
/// server, no MinIO) on 127.0.0.1, on the port it chose itself, with one bucket, `bucket`.
/// rclone reaches it as the remote `tests3:` through its s3 backend (provider Other; moto
/// takes any keys), which lists MD5 hashes (the ETag of a single-part upload, and the MD5
/// rclone stores in the metadata of a multipart one).
public final class S3Server: RemoteServer {
  public static let bucket = "bucket"

  public let port: Int
  private let server: WatchedProcess

  public var processIdentifier: pid_t { server.processIdentifier }

  private init(port: Int, server: WatchedProcess) {
    (self.port, self.server) = (port, server)
  }

  deinit { stop() }

  /// Starts a server with an empty `bucket`; `stop()` ends it (or the end of the test, with
  /// `start(for:)`).
  public static func start() throws -> S3Server {
    try requireTool(TestRclone.path)
    try requireMoto()
    // Port 0: the kernel chooses, and moto's first lines name the port
    // (" * Running on http://127.0.0.1:PORT").
    let server = try WatchedProcess(
      ["/usr/bin/env", "python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", "0"],
      environment: ["PYTHONUNBUFFERED": "1"])
    let address = "Running on http://127.0.0.1:"
    guard
      let port = server.firstLine(
        within: 60,
        { line in
          line.range(of: address).flatMap { Int(line[$0.upperBound...]) }
        })
    else {
      server.stop()
      throw TestFailure("moto's S3 server did not start: \(server.printed)")
    }
    let s3 = S3Server(port: port, server: server)
    try TestRclone.run(["mkdir", "tests3:" + bucket], environment: s3.environment)
    return s3
  }

  /// Starts a server that `test` stops when it ends.
  public static func start(for test: XCTestCase) throws -> S3Server {
    try start().stopped(after: test)
  }

  /// rclone's remote `tests3:`. AWS_CA_BUNDLE is emptied: rclone 1.60's S3 client fails on
  /// any bundle named there ("LoadCustomCABundleError: … unsupported transport"), and the
  /// server speaks plain HTTP anyway.
  public var environment: [String: String] {
    let prefix = "RCLONE_CONFIG_TESTS3_"
    return rcloneWithoutConfigFile.merging(
      [
        "AWS_CA_BUNDLE": "", prefix + "TYPE": "s3", prefix + "PROVIDER": "Other",
        prefix + "ENDPOINT": "http://127.0.0.1:\(port)", prefix + "ACCESS_KEY_ID": "test",
        prefix + "SECRET_ACCESS_KEY": "test", prefix + "REGION": "us-east-1",
      ]
    ) { $1 }
  }

  /// `path` in the bucket, as rclone names it.
  public func remote(_ path: String) -> String {
    "tests3:" + Self.bucket + "/" + path.drop { $0 == "/" }
  }

  public func stop() { server.stop() }

  /// moto's server mode, which needs the extras of `moto[server]` (Flask), not moto alone.
  private static func requireMoto() throws {
    let imported = (try? runProgram(["/usr/bin/env", "python3", "-c", "import moto.server"])) != nil
    try require(imported, "moto's S3 server (PyPI: moto[server]) is not installed; scripts/test installs it")
  }
}
