import Foundation
import XCTest

/// A real server on 127.0.0.1 that rclone reaches as one remote, for the tests of `vault
/// backup`, `restore` and `offload`: `SFTPServer` (OpenSSH) and `S3Server` (moto). The remote
/// is defined by `environment` alone, rclone's `RCLONE_CONFIG_<NAME>_…` variables, with
/// rclone's config file turned off: a test never reads or changes the user's rclone config.
public protocol RemoteServer: AnyObject {
  /// The variables to add to the environment of rclone, or of a vault that runs it.
  var environment: [String: String] { get }
  /// The rclone path of `path` on this server (`testsftp:/abs/path`, `tests3:bucket/path`).
  func remote(_ path: String) -> String
  /// The server's own process (others it started end with it).
  var processIdentifier: pid_t { get }
  /// Ends the server and every process it started; safe to call again.
  func stop()
}

extension RemoteServer {
  /// Stops the server when `test` ends, however it ends.
  public func stopped(after test: XCTestCase) -> Self {
    test.addTeardownBlock { [self] in stop() }
    return self
  }
}

/// What every test remote's environment starts with: rclone's config in memory only. An
/// empty RCLONE_CONFIG is rclone's "no config file"; a path that does not exist would do the
/// same, but rclone says so in a NOTICE line on every run, which would be noise among the
/// errors that vault reports.
let rcloneWithoutConfigFile = ["RCLONE_CONFIG": ""]

/// rclone (Debian's, 1.60), run by tests to set up and look at remotes.
public enum TestRclone {
  public static let path = "/usr/bin/rclone"

  /// Runs rclone with `arguments` and `environment` added to the test's own (a server's);
  /// its stdout, or a failure with its stderr.
  @discardableResult
  public static func run(_ arguments: [String], environment: [String: String]) throws -> Data {
    try requireTool(path)
    return try runProgram([path] + arguments, environment: environment)
  }
}

/// Runs `command` (a program's absolute path and its arguments) to its end, with stdin
/// from /dev/null and `environment` added to the test's own; its stdout, or a `TestFailure`
/// naming the command with its status and stderr. Stderr goes to a file, so that a program
/// that writes much there never blocks while its stdout is read.
@discardableResult
public func runProgram(_ command: [String], environment: [String: String] = [:]) throws -> Data {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: command[0])
  process.arguments = Array(command.dropFirst())
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  let errorsPath = NSTemporaryDirectory() + "vault-test-stderr-" + UUID().uuidString
  guard FileManager.default.createFile(atPath: errorsPath, contents: nil) else {
    throw TestFailure("cannot make \(errorsPath)")
  }
  defer { try? FileManager.default.removeItem(atPath: errorsPath) }
  let output = Pipe()
  process.standardInput = FileHandle.nullDevice
  process.standardOutput = output
  process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorsPath))
  try process.run()
  let printed = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    let errors = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
    throw TestFailure(
      "\(command.joined(separator: " ")): status \(process.terminationStatus): \(errors)")
  }
  return printed
}
