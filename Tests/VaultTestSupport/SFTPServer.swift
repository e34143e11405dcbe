import Foundation
import XCTest

/// A real SFTP server: OpenSSH's sshd (Debian's openssh-server) on 127.0.0.1, on a free port,
/// with its host key and a user key generated here by ssh-keygen, letting in the user that
/// runs the tests (root in CI) by that key alone, with OpenSSH's sftp-server for SFTP. rclone
/// reaches it as the remote `testsftp:`, whose paths are absolute: the whole file system as
/// that user sees it.
///
/// With a shell, rclone's sftp backend lists MD5 and SHA-1 hashes (it runs md5sum and sha1sum
/// on the server over ssh). `shell: false` gives the user SFTP alone (`ForceCommand
/// internal-sftp`), as many hosts do: then rclone lists no hashes, sizes only.
public final class SFTPServer: RemoteServer {
  public static let sshd = "/usr/sbin/sshd"
  public static let sshKeygen = "/usr/bin/ssh-keygen"
  public static let sftpServer = "/usr/lib/openssh/sftp-server"

  /// The folder of its keys and config, removed by `stop()`.
  public let folder: String
  public let port: Int
  /// The user it lets in: the one running the tests.
  public let user: String
  public let shell: Bool
  private let server: WatchedProcess

  /// The private key that logs `user` in, and the known_hosts file that names the server's
  /// host key (so that neither rclone nor ssh asks whether to trust it).
  public var keyFile: String { folder + "/user_key" }
  public var knownHostsFile: String { folder + "/known_hosts" }
  public var processIdentifier: pid_t { server.processIdentifier }

  private init(folder: String, port: Int, user: String, shell: Bool, server: WatchedProcess) {
    (self.folder, self.port, self.user, self.shell, self.server) = (folder, port, user, shell, server)
  }

  deinit { stop() }

  /// Starts a server; `stop()` ends it (or the end of the test, with `start(for:)`).
  public static func start(shell: Bool = true) throws -> SFTPServer {
    for tool in [sshd, sshKeygen, sftpServer] { try requireTool(tool) }
    let folder = NSTemporaryDirectory() + "vault-sftp-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    do {
      return try start(in: folder, shell: shell)
    } catch {
      try? FileManager.default.removeItem(atPath: folder)
      throw error
    }
  }

  /// Starts a server that `test` stops when it ends.
  public static func start(for test: XCTestCase, shell: Bool = true) throws -> SFTPServer {
    try start(shell: shell).stopped(after: test)
  }

  private static func start(in folder: String, shell: Bool) throws -> SFTPServer {
    for key in ["host_key", "user_key"] {
      try runProgram([
        sshKeygen, "-q", "-t", "ed25519", "-N", "", "-C", "vault-test", "-f", folder + "/" + key,
      ])
    }
    try FileManager.default.copyItem(atPath: folder + "/user_key.pub", toPath: folder + "/authorized_keys")
    try makePrivilegeSeparationFolder()
    let user = try currentUserName()
    // sshd takes no port 0: a free port, and another if something took it meanwhile.
    var failures: [String] = []
    for _ in 0..<5 {
      let port = try freePort()
      try config(folder: folder, port: port, shell: shell).write(
        toFile: folder + "/sshd_config", atomically: true, encoding: .utf8)
      let server = try WatchedProcess([sshd, "-D", "-e", "-f", folder + "/sshd_config"])
      let listening = "Server listening on 127.0.0.1 port \(port)."
      let outcome = server.firstLine(within: 60) { line in
        line == listening || line.contains("Address already in use") ? line : nil
      }
      if outcome == listening {
        let hostKey = try String(contentsOfFile: folder + "/host_key.pub", encoding: .utf8)
        try "[127.0.0.1]:\(port) \(hostKey)".write(
          toFile: folder + "/known_hosts", atomically: true, encoding: .utf8)
        return SFTPServer(folder: folder, port: port, user: user, shell: shell, server: server)
      }
      server.stop()
      failures.append(server.printed)
      if outcome == nil { break }
    }
    throw TestFailure("sshd did not start: \(failures.joined(separator: "\n"))")
  }

  /// rclone's remote `testsftp:`, as rclone records it in a config after its first use
  /// (the shell type and the hash commands it found, so that no run spends its time on
  /// finding them again: `none` where the user has no shell).
  public var environment: [String: String] {
    let prefix = "RCLONE_CONFIG_TESTSFTP_"
    return rcloneWithoutConfigFile.merging(
      [
        prefix + "TYPE": "sftp", prefix + "HOST": "127.0.0.1", prefix + "PORT": String(port),
        prefix + "USER": user, prefix + "KEY_FILE": keyFile, prefix + "KNOWN_HOSTS_FILE": knownHostsFile,
        prefix + "SHELL_TYPE": "unix", prefix + "MD5SUM_COMMAND": shell ? "md5sum" : "none",
        prefix + "SHA1SUM_COMMAND": shell ? "sha1sum" : "none",
      ]
    ) { $1 }
  }

  /// `path` (absolute) on this server, as rclone names it.
  public func remote(_ path: String) -> String { "testsftp:" + path }

  /// Ends sshd and every connection's process, and removes the keys.
  public func stop() {
    server.stop()
    try? FileManager.default.removeItem(atPath: folder)
  }

  /// sshd's config: 127.0.0.1 only, keys only, no PAM (which would need a password
  /// database entry set up for it), room for the many connections rclone opens at once
  /// (transfers and checkers, each its own), nothing forwarded. StrictModes is off: the
  /// keys' folder is in /tmp. Root may log in by key, as the user of CI.
  private static func config(folder: String, port: Int, shell: Bool) -> String {
    """
    ListenAddress 127.0.0.1
    Port \(port)
    HostKey \(folder)/host_key
    PidFile none
    AuthorizedKeysFile \(folder)/authorized_keys
    AuthenticationMethods publickey
    PubkeyAuthentication yes
    PasswordAuthentication no
    KbdInteractiveAuthentication no
    PermitRootLogin prohibit-password
    StrictModes no
    UsePAM no
    MaxStartups 100
    MaxSessions 100
    AllowTcpForwarding no
    X11Forwarding no
    PrintMotd no
    Subsystem sftp \(sftpServer)
    \(shell ? "" : "ForceCommand internal-sftp")

    """
  }

  /// sshd run by root checks its privilege separation folder, /run/sshd, which only the
  /// ssh service makes (and CI's machine runs no services): made here when missing.
  private static func makePrivilegeSeparationFolder() throws {
    guard geteuid() == 0, !FileManager.default.fileExists(atPath: "/run/sshd") else { return }
    guard mkdir("/run/sshd", 0o755) == 0 || errno == EEXIST else {
      throw TestFailure("cannot make /run/sshd for sshd: \(String(cString: strerror(errno)))")
    }
  }

  private static func currentUserName() throws -> String {
    guard let entry = getpwuid(getuid()), let name = entry.pointee.pw_name else {
      throw TestFailure("no user name for uid \(getuid())")
    }
    return String(cString: name)
  }
}
