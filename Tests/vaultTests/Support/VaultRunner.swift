import CSodium
import Foundation
@_exported import VaultTestSupport
import XCTest

/// What one run of the built `vault` binary did.
struct VaultRun {
  var status: Int32
  var stdout: String
  var stderr: String
  /// Microseconds from the start of the process to its end.
  var microseconds = 0
}

/// Runs the built `vault` binary against one vault folder, with no terminal: stdin is
/// /dev/null and output goes to files.
struct VaultRunner {
  let vault: String
  let workingDirectory: String
  /// The program run: the built binary, or a copy of it another user can reach.
  var executable = VaultRunner.binary

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

  /// A `vault` process for `arguments`, not started yet; `wrapper` (a program and its
  /// arguments, such as strace) runs vault when given.
  private func process(
    _ arguments: [String], password: String?, environment extra: [String: String],
    through wrapper: [String] = []
  ) -> Process {
    let process = Process()
    if let program = wrapper.first {
      process.executableURL = URL(fileURLWithPath: program)
      process.arguments = Array(wrapper.dropFirst()) + [executable] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: executable)
      process.arguments = arguments
    }
    process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
    var environment = ProcessInfo.processInfo.environment
    for name in ["VAULT_PASSWORD", "VAULT_DIR", "XDG_DATA_HOME", "NO_COLOR"] { environment[name] = nil }
    environment["VAULT_DIR"] = vault
    environment["COLUMNS"] = "100"
    environment["TZ"] = "UTC"
    if let password { environment["VAULT_PASSWORD"] = password }
    environment.merge(extra) { $1 }
    process.environment = environment
    return process
  }

  /// Starts `vault` with its stdout on a pipe, so that a test can act when a line appears
  /// (its stderr too, with `errorsInOutput`).
  func start(
    _ arguments: [String], password: String? = "correct horse", environment: [String: String] = [:],
    errorsInOutput: Bool = false, through wrapper: [String] = []
  ) throws -> RunningVault {
    try RunningVault(
      process(arguments, password: password, environment: environment, through: wrapper),
      errorPath: workingDirectory + "/.stderr-\(UUID().uuidString)", errorsInOutput: errorsInOutput)
  }

  /// The photos `vault list --json` lists with `arguments`; a failed list fails the test.
  func listJSON(
    _ arguments: [String] = [], password: String = "correct horse", file: StaticString = #filePath,
    line: UInt = #line
  ) throws -> [[String: Any]] {
    let run = try self.run(["list", "--json"] + arguments, password: password)
    XCTAssertEqual(run.status, 0, run.stderr, file: file, line: line)
    return try Self.jsonObjects(run.stdout)
  }

  /// The objects of a `--json` output (a JSON array of objects).
  static func jsonObjects(_ output: String) throws -> [[String: Any]] {
    try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]] ?? []
  }

  /// The folder of the vault's first space (by name): the only one in a vault of one space.
  func spaceFolder() throws -> String {
    try XCTUnwrap(spaceFolders().first, "no space in \(vault)")
  }

  /// The folder of each space of the vault.
  func spaceFolders() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: vault).filter { $0 != "vault.json" }.sorted().map {
      vault + "/" + $0
    }
  }

  @discardableResult
  func run(
    _ arguments: [String], password: String? = "correct horse", environment extra: [String: String] = [:],
    input: String? = nil, killAfter delay: Int? = nil, through wrapper: [String] = []
  ) throws -> VaultRun {
    let process = process(arguments, password: password, environment: extra, through: wrapper)
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
    let started = DispatchTime.now().uptimeNanoseconds
    if let delay {
      usleep(useconds_t(delay))
      kill(process.processIdentifier, SIGKILL)
    }
    // Foundation notices the end of a process only every 50 ms; waitid sees it at once,
    // and WNOWAIT leaves the process for Foundation to collect.
    var info = siginfo_t()
    while waitid(P_PID, id_t(process.processIdentifier), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
    let ended = DispatchTime.now().uptimeNanoseconds
    process.waitUntilExit()
    return VaultRun(
      status: process.terminationStatus,
      stdout: try String(contentsOfFile: outPath, encoding: .utf8),
      stderr: try String(contentsOfFile: errPath, encoding: .utf8),
      microseconds: Int((ended - started) / 1000))
  }
}

/// A running `vault` whose stdout is read line by line as it comes.
final class RunningVault {
  let process: Process
  private let output: FileHandle
  private let errorPath: String
  private var pending = Data()
  /// The lines read so far.
  private(set) var lines: [String] = []
  /// The pipe vault's stdout goes into (it reports POLLHUP once vault has ended).
  var outputDescriptor: Int32 { output.fileDescriptor }

  init(_ process: Process, errorPath: String, errorsInOutput: Bool = false) throws {
    self.process = process
    self.errorPath = errorPath
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    let pipe = Pipe()
    output = pipe.fileHandleForReading
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = pipe
    process.standardError =
      errorsInOutput ? pipe : try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    try process.run()
    try pipe.fileHandleForWriting.close()
  }

  /// Reads stdout until a line for which `predicate` holds, and returns it; nil if the
  /// output ends first.
  @discardableResult
  func waitForLine(where predicate: (String) -> Bool) -> String? {
    while true {
      if let newline = pending.firstIndex(of: 0x0A) {
        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
        pending = Data(pending[(newline + 1)...])
        lines.append(line)
        if predicate(line) { return line }
        continue
      }
      let chunk = output.availableData
      if chunk.isEmpty { return nil }
      pending.append(chunk)
    }
  }

  func send(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Closes the reading end of vault's stdout, as `vault … | head` does once it has its
  /// lines, and waits for vault to end: its next write fails.
  func closeOutputAndWait() throws {
    try output.close()
    process.waitUntilExit()
  }

  /// Reads the rest of the output and waits for the process to end.
  func finish() throws -> VaultRun {
    waitForLine { _ in false }
    if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
    process.waitUntilExit()
    defer { try? FileManager.default.removeItem(atPath: errorPath) }
    return VaultRun(
      status: process.terminationStatus, stdout: lines.map { $0 + "\n" }.joined(),
      stderr: try String(contentsOfFile: errorPath, encoding: .utf8))
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

/// How `add` counts `count` photos (none of them videos or Live Photos) in its summary.
func photoCount(_ count: Int) -> String {
  count == 0 ? "0 items" : count == 1 ? "1 photo" : "\(count) photos"
}
