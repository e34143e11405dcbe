import CSodium
import Foundation
@_exported import VaultTestSupport
import XCTest

/// What one run of the built `vault` binary did.
struct VaultRun {
  var status: Int32
  var stdout: String
  var stderr: String
}

/// Runs the built `vault` binary against one vault folder, with no terminal: stdin is
/// /dev/null and output goes to files.
struct VaultRunner {
  let vault: String
  let workingDirectory: String

  /// The `vault` executable next to the test bundle in the build folder. The test process
  /// leaves its controlling terminal first (if it has one and can), so that a `vault` run
  /// here never prompts on the terminal of whoever runs the tests; tests of prompts use
  /// tmux.
  static let binary: String = {
    _ = setsid()
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("vault").path
  }()

  /// A runner for `<folder>/vault`, made with one space for the default password and the
  /// cheapest KDF the format accepts.
  static func initialized(in folder: String, file: StaticString = #filePath, line: UInt = #line) throws
    -> VaultRunner
  {
    let runner = VaultRunner(vault: folder + "/vault", workingDirectory: folder)
    let run = try runner.run(["init", "--kdf", "interactive"])
    XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
    return runner
  }

  /// Starts `vault`, sends it SIGKILL after `delay` microseconds (if it is still running),
  /// and returns what it had printed.
  func runKilled(_ arguments: [String], afterMicroseconds delay: Int) throws -> VaultRun {
    try run(arguments, killAfter: delay)
  }

  @discardableResult
  func run(
    _ arguments: [String], password: String? = "correct horse", environment extra: [String: String] = [:],
    input: String? = nil, killAfter delay: Int? = nil
  ) throws -> VaultRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.binary)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
    var environment = ProcessInfo.processInfo.environment
    for name in ["VAULT_PASSWORD", "VAULT_DIR", "XDG_DATA_HOME", "NO_COLOR"] { environment[name] = nil }
    environment["VAULT_DIR"] = vault
    environment["COLUMNS"] = "100"
    environment["TZ"] = "UTC"
    if let password { environment["VAULT_PASSWORD"] = password }
    environment.merge(extra) { $1 }
    process.environment = environment
    let outPath = workingDirectory + "/.stdout-\(UUID().uuidString)"
    let errPath = workingDirectory + "/.stderr-\(UUID().uuidString)"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    defer {
      try? FileManager.default.removeItem(atPath: outPath)
      try? FileManager.default.removeItem(atPath: errPath)
    }
    if let input {
      let inPath = workingDirectory + "/.stdin-\(UUID().uuidString)"
      try input.write(toFile: inPath, atomically: false, encoding: .utf8)
      defer { try? FileManager.default.removeItem(atPath: inPath) }
      process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inPath))
    } else {
      process.standardInput = FileHandle.nullDevice
    }
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    try process.run()
    if let delay {
      usleep(useconds_t(delay))
      kill(process.processIdentifier, SIGKILL)
    }
    process.waitUntilExit()
    return VaultRun(
      status: process.terminationStatus,
      stdout: try String(contentsOfFile: outPath, encoding: .utf8),
      stderr: try String(contentsOfFile: errPath, encoding: .utf8))
  }
}

func sha256(_ bytes: [UInt8]) -> String {
  var digest = [UInt8](repeating: 0, count: 32)
  crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
  return digest.map { String(format: "%02x", $0) }.joined()
}

/// Every file below `folder`, by relative path, with the SHA-256 of its contents.
func snapshot(_ folder: String) throws -> [String: String] {
  var result: [String: String] = [:]
  for case let relative as String in FileManager.default.enumerator(atPath: folder)?.allObjects ?? [] {
    let path = folder + "/" + relative
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
      result[relative] = sha256(try fileBytes(path))
    } else {
      result[relative + "/"] = ""
    }
  }
  return result
}
