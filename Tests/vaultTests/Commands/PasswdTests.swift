import Foundation
import XCTest

/// `vault passwd` through the built binary: the space moves to the new password with its
/// photos, and every refusal leaves the vault as it was.
final class PasswdTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    XCTAssertEqual(try vault.run(["init"], password: "a decoy").status, 0)
    let add = try vault.run(["add", fixturesPath + "/photo.jpg", fixturesPath + "/gray.png"])
    XCTAssertEqual(add.status, 0, add.stderr)
  }

  private func names(_ password: String) throws -> [String]? {
    let run = try vault.run(["list", "--json"], password: password)
    guard run.status == 0 else {
      XCTAssertEqual(run.status, 3, run.stderr)
      return nil
    }
    let objects = try VaultRunner.jsonObjects(run.stdout)
    return objects.compactMap { $0["name"] as? String }
  }

  private func file(_ name: String, _ contents: String) throws -> String {
    let path = folder + "/" + name
    try contents.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  func testTheSpaceMovesToTheNewPassword() throws {
    let run = try vault.run(["passwd", "--new-password-file", try file("new", "battery staple\n")])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(run.stdout, "changed the password of the space; the old password no longer opens it\n")
    XCTAssertTrue(run.stderr.contains("only the space's recovery key opens it"), run.stderr)
    XCTAssertFalse(run.stderr.contains("fewer than"), run.stderr)
    XCTAssertEqual(try names("battery staple"), ["photo.jpg", "gray.png"])
    XCTAssertNil(try names("correct horse"))
    XCTAssertEqual(try names("a decoy"), [])
    let verify = try vault.run(["verify"], password: "battery staple")
    XCTAssertEqual(verify.status, 0, verify.stdout)
    XCTAssertFalse(verify.stdout.contains("unexpected"), verify.stdout)
    for space in try vault.spaceFolders() {
      XCTAssertFalse(FileManager.default.fileExists(atPath: space + "/key-next"), space)
    }
    // And back, with the current password from a file this time and a short new one.
    let back = try vault.run(
      [
        "passwd", "--password-file", try file("current", "battery staple"), "--new-password-file",
        try file("short", "abc"),
      ],
      password: nil)
    XCTAssertEqual(back.status, 0, back.stderr)
    XCTAssertTrue(back.stderr.contains("fewer than 8 characters"), back.stderr)
    XCTAssertEqual(try names("abc"), ["photo.jpg", "gray.png"])
  }

  func testRefusalsLeaveTheVaultAsItWas() throws {
    let before = try snapshot(vault.vault)
    let cases: [(arguments: [String], password: String?, status: Int32, error: String)] = [
      (
        ["--new-password-file", try file("new", "battery staple")], "wrong horse", 3,
        "error: no space opens with this password\n"
      ),
      (
        ["--new-password-file", try file("same", "correct horse")], "correct horse", 1,
        "error: the new password is the current one; nothing was changed\n"
      ),
      (
        ["--new-password-file", try file("decoy", "a decoy")], "correct horse", 1,
        "error: that password already opens another space; nothing was changed\n"
      ),
      (
        ["--new-password-file", folder + "/absent"], "correct horse", 1,
        "error: '\(folder)/absent': cannot read new password file: No such file or directory\n"
      ),
      (
        ["--new-password-file", folder], "correct horse", 1,
        "error: '\(folder)': cannot read new password file: Is a directory\n"
      ),
      (
        ["--new-password-file", try file("empty", "\n")], "correct horse", 1,
        "error: unusable password: the first line of '\(folder)/empty': it is empty\n"
      ),
      // No terminal to ask on, and $VAULT_PASSWORD is the current password, never the new.
      (
        [], "correct horse", 1,
        "error: no new password: use --new-password-file FILE, or run vault on a terminal\n"
      ),
    ]
    for (arguments, password, status, error) in cases {
      let run = try vault.run(["passwd"] + arguments, password: password)
      XCTAssertEqual(run.status, status, "\(arguments): \(run.stderr)")
      XCTAssertEqual(run.stderr, error, "\(arguments)")
      XCTAssertEqual(run.stdout, "", "\(arguments)")
      XCTAssertEqual(try snapshot(vault.vault), before, "\(arguments)")
    }
    let both = try vault.run(["passwd", "--password-file", "-", "--new-password-file", "-"], password: nil)
    XCTAssertEqual(both.status, 64, both.stderr)
    XCTAssertTrue(both.stderr.contains("Only one of --password-file and --new-password-file"), both.stderr)
    XCTAssertEqual(try snapshot(vault.vault), before)
  }

  func testTheNewPasswordIsAskedTwiceOnTheTerminal() throws {
    let before = try snapshot(vault.vault)
    let mismatch = try TmuxSession(
      "\(VaultRunner.binary) passwd; echo status=$?", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"])
    try mismatch.wait(for: "New password:")
    try mismatch.type("battery staple")
    try mismatch.send("Enter")
    try mismatch.wait(for: "Repeat new password:")
    try mismatch.type("battery stable")
    try mismatch.send("Enter")
    let refused = try mismatch.waitUntilFinished()
    XCTAssertTrue(refused.contains("error: the new passwords do not match; nothing was changed"), refused)
    XCTAssertTrue(refused.contains("status=1"), refused)
    XCTAssertEqual(try snapshot(vault.vault), before)

    // Every password from the terminal: the current one first, checked before the new one
    // is asked for.
    let session = try TmuxSession(
      "\(VaultRunner.binary) passwd; echo status=$?", in: folder, environment: ["VAULT_DIR": vault.vault])
    try session.wait(for: "Current password:")
    try session.type("correct horse")
    try session.send("Enter")
    // Each answer waits for its prompt: keys typed before it would be echoed, then flushed.
    for prompt in ["New password:", "Repeat new password:"] {
      try session.wait(for: prompt)
      try session.type("battery staple")
      try session.send("Enter")
    }
    let screen = try session.waitUntilFinished()
    XCTAssertTrue(screen.contains("changed the password of the space"), screen)
    XCTAssertTrue(screen.contains("status=0"), screen)
    XCTAssertFalse(screen.contains("battery staple"), "a password was echoed: \(screen)")
    XCTAssertEqual(try names("battery staple"), ["photo.jpg", "gray.png"])

    let wrong = try TmuxSession(
      "\(VaultRunner.binary) passwd; echo status=$?", in: folder, environment: ["VAULT_DIR": vault.vault])
    try wrong.wait(for: "Current password:")
    try wrong.type("correct horse")
    try wrong.send("Enter")
    let stopped = try wrong.waitUntilFinished()
    XCTAssertTrue(stopped.contains("error: no space opens with this password"), stopped)
    // A vault kept by no sync engine: the hint on a password changed on another copy cannot apply.
    XCTAssertFalse(stopped.contains("hint:"), stopped)
    XCTAssertTrue(stopped.contains("status=3"), stopped)
    XCTAssertFalse(stopped.contains("New password:"), stopped)
  }

  func testHelpNamesIt() throws {
    let help = try vault.run(["--help"])
    XCTAssertTrue(help.stdout.contains("passwd"), help.stdout)
    let own = try vault.run(["passwd", "--help"])
    XCTAssertTrue(own.stdout.contains("--new-password-file"), own.stdout)
  }
}
