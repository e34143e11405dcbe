import Foundation
import XCTest

/// Two real Syncthing instances on this machine that share one folder, as two machines
/// would: `<root>/A` and `<root>/B`. Each has its own home (generated key and device id)
/// and a config.xml written here: listening on 127.0.0.1 only, its GUI and REST API on
/// another free port of 127.0.0.1 with an API key, no discovery (global or local), no
/// relays, no NAT traversal, no usage reporting, no upgrades, no browser, and no file
/// watcher or periodic rescan (the tests ask for every scan, see `settle`). The folder
/// ignores `.tmp-*`, as docs/SYNC.md advises.
///
/// The processes run under `setpriv --pdeathsig KILL`, so that they end with the test
/// process even if it crashes; `stop()` ends them at the end of a test class.
final class SyncthingPair {
  static let syncthing = "/usr/bin/syncthing"
  static let setpriv = "/usr/bin/setpriv"
  static let curl = "/usr/bin/curl"
  static let folderID = "vault"

  /// One instance: its name (A or B), the folder it shares, and how to reach its API.
  struct Instance {
    let name: String
    let home: String
    let folder: String
    let deviceID: String
    let listenPort: Int
    let apiPort: Int
    let apiKey: String
  }

  let root: String
  private(set) var instances: [Instance] = []
  private var processes: [Process] = []

  /// Generates both homes, writes their configs and starts both instances.
  init(root: String) throws {
    self.root = root
    var generated: [(home: String, id: String)] = []
    for name in ["A", "B"] {
      let home = root + "/home-" + name
      try Self.run([
        Self.syncthing, "generate", "--home=" + home, "--no-default-folder", "--skip-port-probing",
      ])
      generated.append((home, try Self.deviceID(inConfig: home + "/config.xml")))
    }
    for (index, name) in ["A", "B"].enumerated() {
      let folder = root + "/" + name
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      try ".tmp-*\n".write(toFile: folder + "/.stignore", atomically: true, encoding: .utf8)
      instances.append(
        Instance(
          name: name, home: generated[index].home, folder: folder, deviceID: generated[index].id,
          listenPort: try freePort(), apiPort: try freePort(), apiKey: "vault-test-" + UUID().uuidString))
    }
    for instance in instances {
      try config(for: instance).write(
        toFile: instance.home + "/config.xml", atomically: true, encoding: .utf8)
      try start(instance)
    }
    try waitUntilConnected()
  }

  deinit { stop() }

  /// Ends both instances (SIGTERM, then SIGKILL if one lingers) and waits for them.
  func stop() {
    for process in processes where process.isRunning {
      process.terminate()
      let deadline = Date().addingTimeInterval(10)
      while process.isRunning && Date() < deadline { usleep(20_000) }
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
    }
    processes = []
  }

  // MARK: Waiting for the engines

  /// Asks both instances to scan the folder, then waits until both are idle, need
  /// nothing, have each other's whole index (the sequence each knows of the other is the
  /// other's own) and see the other 100 % complete, with the same global counts. Pulling
  /// can leave a folder that one side deleted while the other wrote into it: the side that
  /// pulled recreated it, which only a scan of that side reports, so while the pair has
  /// not settled each round scans again. Fails after `deadline` seconds, with both states.
  func settle(deadline: TimeInterval = 180, file: StaticString = #filePath, line: UInt = #line) throws {
    let start = Date()
    var last = ""
    while Date().timeIntervalSince(start) < deadline {
      for instance in instances { try scan(instance) }
      // A round: after a scan, the index exchange and the pulls it starts take a moment.
      let round = Date()
      while Date().timeIntervalSince(round) < 5 {
        let (settled, state) = try isSettled()
        if settled { return }
        last = state
        usleep(50_000)
      }
    }
    XCTFail("the Syncthing instances did not settle in \(Int(deadline)) s: \(last)", file: file, line: line)
    throw TestFailure("not settled")
  }

  /// Whether both sides are in sync, and what each reports.
  private func isSettled() throws -> (Bool, String) {
    let status = try instances.map { try api($0, "/rest/db/status?folder=" + Self.folderID) }
    var settled = true
    var report: [String] = []
    for (index, instance) in instances.enumerated() {
      let peer = instances[1 - index]
      let completion = try api(
        instance, "/rest/db/completion?folder=\(Self.folderID)&device=\(peer.deviceID)")
      let own = status[index]
      let peerSequence = status[1 - index]["sequence"] as? Int ?? -1
      settled =
        settled && own["state"] as? String == "idle" && own["needTotalItems"] as? Int == 0
        && own["pullErrors"] as? Int == 0 && completion["completion"] as? Double == 100
        && completion["needItems"] as? Int == 0 && completion["sequence"] as? Int == peerSequence
      report.append(
        "\(instance.name): \(own["state"] ?? "?") need \(own["needTotalItems"] ?? "?") pull errors "
          + "\(own["pullErrors"] ?? "?") sequence \(own["sequence"] ?? "?"), sees \(peer.name) "
          + "\(completion["completion"] ?? "?") % at sequence \(completion["sequence"] ?? "?")")
    }
    for count in ["globalFiles", "globalDirectories", "globalDeleted", "globalBytes"] {
      settled = settled && status[0][count] as? Int == status[1][count] as? Int
    }
    return (settled, report.joined(separator: "; "))
  }

  /// A scan of the folder; the API answers once it is done.
  private func scan(_ instance: Instance) throws {
    _ = try request(instance, "/rest/db/scan?folder=" + Self.folderID, method: "POST")
  }

  private func waitUntilConnected(deadline: TimeInterval = 120) throws {
    let start = Date()
    while Date().timeIntervalSince(start) < deadline {
      let connections = try? api(instances[0], "/rest/system/connections")
      let peers = connections?["connections"] as? [String: Any]
      let peer = peers?[instances[1].deviceID] as? [String: Any]
      if peer?["connected"] as? Bool == true { return }
      usleep(50_000)
    }
    throw TestFailure("the Syncthing instances did not connect in \(Int(deadline)) s (logs in \(root))")
  }

  // MARK: The API

  /// A GET of the REST API, as a JSON object.
  func api(_ instance: Instance, _ path: String) throws -> [String: Any] {
    let body = try request(instance, path, method: "GET")
    guard let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
      throw TestFailure("\(instance.name) \(path): not a JSON object: \(body)")
    }
    return object
  }

  private func request(_ instance: Instance, _ path: String, method: String) throws -> String {
    try Self.run([
      Self.curl, "-sS", "--fail", "--max-time", "120", "-X", method, "-H", "X-API-Key: " + instance.apiKey,
      "http://127.0.0.1:\(instance.apiPort)" + path,
    ])
  }

  // MARK: Set-up

  private func start(_ instance: Instance) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.setpriv)
    process.arguments = [
      "--pdeathsig", "KILL", Self.syncthing, "serve", "--home=" + instance.home, "--no-browser",
      "--no-restart",
      "--no-upgrade", "--logfile=" + root + "/log-" + instance.name,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["STNORESTART"] = "1"
    environment["STNOUPGRADE"] = "1"
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    processes.append(process)
    // Up once its API answers.
    let start = Date()
    while (try? api(instance, "/rest/system/ping")) == nil {
      guard process.isRunning, Date().timeIntervalSince(start) < 120 else {
        throw TestFailure("syncthing \(instance.name) did not start (log: \(root)/log-\(instance.name))")
      }
      usleep(50_000)
    }
  }

  /// The config of one instance: both devices at their loopback addresses, one shared
  /// folder, nothing that reaches past this machine.
  private func config(for instance: Instance) -> String {
    let devices = instances.map {
      """
        <device id="\($0.deviceID)" name="\($0.name)" compression="metadata" introducer="false">
          <address>tcp://127.0.0.1:\($0.listenPort)</address>
        </device>
      """
    }
    return """
      <configuration version="36">
        <folder id="\(Self.folderID)" label="vault" path="\(instance.folder)" type="sendreceive"
            rescanIntervalS="0" fsWatcherEnabled="false" ignorePerms="false" autoNormalize="true">
          \(instances.map { "<device id=\"\($0.deviceID)\"></device>" }.joined())
          <minDiskFree unit="%">0</minDiskFree>
        </folder>
      \(devices.joined(separator: "\n"))
        <gui enabled="true" tls="false">
          <address>127.0.0.1:\(instance.apiPort)</address>
          <apikey>\(instance.apiKey)</apikey>
        </gui>
        <options>
          <listenAddress>tcp://127.0.0.1:\(instance.listenPort)</listenAddress>
          <globalAnnounceEnabled>false</globalAnnounceEnabled>
          <localAnnounceEnabled>false</localAnnounceEnabled>
          <relaysEnabled>false</relaysEnabled>
          <natEnabled>false</natEnabled>
          <urAccepted>-1</urAccepted>
          <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
          <startBrowser>false</startBrowser>
          <crashReportingEnabled>false</crashReportingEnabled>
          <minHomeDiskFree unit="%">0</minHomeDiskFree>
        </options>
      </configuration>
      """
  }

  /// The device id `syncthing generate` wrote into a config: its first device's.
  private static func deviceID(inConfig path: String) throws -> String {
    let config = try String(contentsOfFile: path, encoding: .utf8)
    guard let start = config.range(of: "<device id=\""),
      let end = config[start.upperBound...].firstIndex(of: "\"")
    else { throw TestFailure("no device id in \(path)") }
    return String(config[start.upperBound..<end])
  }

  /// Runs a program to its end; its stdout, or an error with its output if it fails.
  @discardableResult
  static func run(_ command: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestFailure(
        "\(command.joined(separator: " ")): status \(process.terminationStatus): \(errorText)")
    }
    return text
  }
}
