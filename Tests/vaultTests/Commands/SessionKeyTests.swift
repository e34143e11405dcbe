import CKeyutils
import Foundation
import XCTest

@testable import VaultCore

/// `vault unlock`, `lock` and the commands that open a space with a session key, through the
/// built binary. Each test's vault processes run in a session keyring of the test's own
/// (`TestKeyring`): nothing is read from or left in the keyring of whoever runs the tests.
final class SessionKeyTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  var keyring: TestKeyring!

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
    keyring = try TestKeyring()
  }

  override func tearDown() {
    keyring?.destroy()
  }

  /// Runs vault in the test's session keyring; no password unless one is given.
  @discardableResult
  func run(
    _ arguments: [String], password: String? = nil, on runner: VaultRunner? = nil,
    through wrapper: [String] = []
  ) throws -> VaultRun {
    try keyring.run(runner ?? vault, arguments, password: password, through: wrapper)
  }

  func unlock(
    _ extra: [String] = [], on runner: VaultRunner? = nil, file: StaticString = #filePath, line: UInt = #line
  )
    throws
  {
    let unlocked = try run(["unlock"] + extra, password: "correct horse", on: runner)
    XCTAssertEqual(unlocked.status, 0, unlocked.stderr, file: file, line: line)
    XCTAssertTrue(unlocked.stdout.hasPrefix("unlocked: kept until "), unlocked.stdout, file: file, line: line)
  }

  func addPhoto(_ name: String = "gray.jpg") throws {
    let added = try vault.run(["add", fixturesPath + "/" + name])
    XCTAssertEqual(added.status, 0, added.stderr)
  }

  func assertAsksForPassword(_ run: VaultRun, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(run.status, 1, run.stdout, file: file, line: line)
    XCTAssertTrue(
      run.stderr.hasSuffix(
        "error: no password: use --password-file FILE, set VAULT_PASSWORD, or run vault on a terminal\n"),
      run.stderr, file: file, line: line)
  }

  func testUnlockedSpaceOpensWithoutPassword() throws {
    try addPhoto()
    // Without a session key, a command with no password and no terminal cannot open it.
    assertAsksForPassword(try run(["list"]))
    try unlock()
    let listed = try run(["list"])
    XCTAssertEqual(listed.status, 0, listed.stderr)
    XCTAssertTrue(listed.stdout.contains("gray.jpg"), listed.stdout)
    XCTAssertEqual(listed.stderr, "")
    // Writers use it too.
    let added = try run(["add", fixturesPath + "/gray.png"])
    XCTAssertEqual(added.status, 0, added.stderr)
    let selected = try run(["select", "1"])
    XCTAssertEqual(selected.status, 0, selected.stderr)
    let json = try run(["list", "--json"])
    XCTAssertEqual(json.status, 0, json.stderr)
    XCTAssertTrue(json.stdout.contains("gray.png"), json.stdout)
  }

  func testPasswordFileAndEnvironmentStillChooseTheSpace() throws {
    try addPhoto()
    XCTAssertEqual(try vault.run(["init"], password: "decoy").status, 0)
    try unlock()
    // VAULT_PASSWORD names another space: that one opens, not the unlocked one.
    let decoy = try run(["list"], password: "decoy")
    XCTAssertEqual(decoy.status, 0, decoy.stderr)
    XCTAssertTrue(decoy.stdout.contains("no photos in this space"), decoy.stdout)
    let passwordFile = folder + "/decoy-password"
    try "decoy\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
    let fromFile = try run(["list", "--password-file", passwordFile])
    XCTAssertTrue(fromFile.stdout.contains("no photos in this space"), fromFile.stdout)
    // A wrong password is wrong, session key or not.
    XCTAssertEqual(try run(["list"], password: "wrong").status, 3)
    XCTAssertTrue(try run(["list"]).stdout.contains("gray.jpg"))
  }

  func testLockDropsTheKeyAtOnce() throws {
    try unlock()
    XCTAssertEqual(keyring.spaceKeys().count, 1)
    let locked = try run(["lock"])
    XCTAssertEqual(locked.status, 0, locked.stderr)
    XCTAssertEqual(locked.stdout, "locked: the session key of this vault was dropped\n")
    XCTAssertEqual(keyring.spaceKeys(), [])
    assertAsksForPassword(try run(["list"]))
    let again = try run(["lock"])
    XCTAssertEqual(again.status, 0)
    XCTAssertEqual(again.stdout, "no session key was kept for the vault at \(vault.vault)\n")
    XCTAssertEqual(again.stderr, "hint: 'vault lock --all' drops the session keys of every vault\n")
    // The unlocking password is needed again, and works again.
    try unlock()
    XCTAssertEqual(try run(["list"]).status, 0)
  }

  func testLockAllDropsEveryVaultsKey() throws {
    let other = try VaultRunner.initialized(in: try makeTemporaryFolder(self))
    try unlock()
    try unlock(on: other)
    XCTAssertEqual(keyring.spaceKeys().count, 2)
    let locked = try run(["lock", "--all"])
    XCTAssertEqual(locked.status, 0, locked.stderr)
    XCTAssertEqual(locked.stdout, "dropped 2 session keys\n")
    XCTAssertEqual(keyring.keys(), [], "vault's keyring and secret go too")
    assertAsksForPassword(try run(["list"]))
    assertAsksForPassword(try run(["list"], on: other))
    XCTAssertEqual(try run(["lock", "--all"]).stdout, "no session keys were kept\n")
  }

  /// The kernel drops the key once it has not been used for --for: the test waits for that
  /// to happen (reading /proc/keys, which does not use the key), not for a time.
  func testKeyExpiresWhenNotUsed() throws {
    try unlock(["--for", "2s", "--max", "1h"])
    XCTAssertTrue(
      try waitUntil { self.keyring.spaceKeys().allSatisfy { $0.expired } }, "the key never expired")
    assertAsksForPassword(try run(["list"]))
  }

  /// Each use pushes the timeout back, but never past --max.
  func testUseNeverKeepsTheKeyPastItsDeadline() throws {
    try unlock(["--for", "3s", "--max", "3s"])
    var uses = 0
    let ended = try waitUntil {
      let listed = try self.run(["list"])
      if listed.status == 0 { uses += 1 }
      return listed.status != 0
    }
    XCTAssertTrue(ended, "the key outlived its deadline through \(uses) uses")
  }

  func testNameRevealsNeitherSpaceNorVault() throws {
    try unlock()
    let other = try VaultRunner.initialized(in: try makeTemporaryFolder(self))
    try unlock(on: other)
    let tags = try vault.spaceFolders().map { URL(fileURLWithPath: $0).lastPathComponent }
    let header = try String(contentsOfFile: vault.vault + "/vault.json", encoding: .utf8)
    let salt = try XCTUnwrap(header.firstMatch(of: #/"salt" : "([0-9a-f]+)"/#)).1
    let keys = keyring.spaceKeys()
    XCTAssertEqual(keys.count, 2)
    var names = Set<String>()
    for key in keys {
      XCTAssertNotNil(key.description.wholeMatch(of: #/vault:[0-9a-f]{32}/#), key.description)
      for secret in tags + [String(salt), folder, "correct", URL(fileURLWithPath: folder).lastPathComponent] {
        XCTAssertFalse(key.description.contains(secret), "\(key.description) names \(secret)")
      }
      names.insert(key.description)
    }
    XCTAssertEqual(names.count, 2)
    // Another session names the same vault otherwise: names cannot be linked across sessions.
    let nextSession = try TestKeyring()
    defer { nextSession.destroy() }
    XCTAssertEqual(try nextSession.run(vault, ["unlock"], password: "correct horse").status, 0)
    let renamed = try XCTUnwrap(nextSession.spaceKeys().first?.description)
    XCTAssertFalse(names.contains(renamed), renamed)
  }

  /// No user, group or other permission bits: only the session's processes (possessors)
  /// reach the keys, and none may link them elsewhere.
  func testKeysArePossessorOnly() throws {
    try unlock()
    let keys = keyring.keys()
    XCTAssertEqual(
      keys.map { [$0.type, $0.description, $0.permissions] }.sorted { $0[1] < $1[1] },
      [
        ["keyring", "vault", "0f000000"], ["user", keyring.spaceKeys()[0].description, "2b000000"],
        ["user", "vault:secret", "0b000000"],
      ].sorted { $0[1] < $1[1] })
    // Another session of the same user cannot find it.
    let elsewhere = try TestKeyring()
    defer { elsewhere.destroy() }
    assertAsksForPassword(try elsewhere.run(vault, ["list"], password: nil))
  }

  /// Where the key system calls are refused (a container's seccomp filter, as Docker's
  /// default profile does with EPERM), unlock says so in one line before asking for a
  /// password, and other commands ask for it as before.
  func testWithoutKeyringUnlockSaysSoAndOthersPrompt() throws {
    try addPhoto()
    let wrapper = try seccompWrapper("refuse-keys")
    let unlocked = try run(["unlock"], password: "correct horse", through: wrapper)
    XCTAssertEqual(unlocked.status, 1)
    XCTAssertEqual(unlocked.stdout, "")
    XCTAssertEqual(
      unlocked.stderr,
      "error: no kernel keyring is available to keep the key (keyctl: Operation not permitted)\n")
    XCTAssertEqual(keyring.keys(), [])
    let listed = try run(["list"], password: "correct horse", through: wrapper)
    XCTAssertEqual(listed.status, 0, listed.stderr)
    XCTAssertTrue(listed.stdout.contains("gray.jpg"))
    assertAsksForPassword(try run(["list"], through: wrapper))
  }

  /// A key whose space changed (the folder renamed, as a password change does, or the
  /// space made again with a new master key) is dropped with a warning, and the password
  /// is asked for.
  func testKeyOfAChangedSpaceIsDropped() throws {
    try unlock()
    let space = try XCTUnwrap(vault.spaceFolders().first)
    try FileManager.default.moveItem(atPath: space, toPath: space + "-moved")
    let moved = try run(["list"])
    XCTAssertTrue(
      moved.stderr.hasPrefix(
        "warning: the session key no longer opens its space (its password was changed, or the space was removed, made again or damaged); it was dropped\n"
      ), moved.stderr)
    assertAsksForPassword(moved)
    XCTAssertEqual(keyring.spaceKeys(), [])

    try FileManager.default.moveItem(atPath: space + "-moved", toPath: space)
    try unlock()
    // The same password's space made again (same folder, another master key) is the space
    // of that password: its key file unwraps with the kept key, which opens the new space.
    try FileManager.default.removeItem(atPath: space)
    XCTAssertEqual(try vault.run(["init"]).status, 0)
    let remade = try run(["add", fixturesPath + "/gray.jpg"])
    XCTAssertEqual(remade.status, 0, remade.stderr)
    XCTAssertTrue(try vault.run(["list"]).stdout.contains("gray.jpg"))
    // Another password's key file in the folder (a password change that kept the folder
    // name, or a key file swapped in): the kept key does not unwrap it.
    let other = try VaultRunner.initialized(in: try makeTemporaryFolder(self))
    try FileManager.default.removeItem(atPath: space + "/key")
    try FileManager.default.copyItem(
      atPath: try XCTUnwrap(other.spaceFolders().first) + "/key", toPath: space + "/key")
    let swapped = try run(["list"])
    XCTAssertTrue(
      swapped.stderr.hasPrefix("warning: the session key no longer opens its space"), swapped.stderr)
    assertAsksForPassword(swapped)
    XCTAssertEqual(keyring.spaceKeys(), [])
  }

  /// A kill between making the key and setting its timeout must not leave a key that never
  /// expires: the key is made in the process's own keyring, which goes with the process,
  /// and joins vault's keyring only once its timeout and permissions are set.
  func testKillBeforeTheTimeoutIsSetLeavesNoKey() throws {
    let killed = try run(
      ["unlock"], password: "correct horse", through: try seccompWrapper("kill-on-set-timeout"))
    XCTAssertNotEqual(killed.status, 0, killed.stdout)
    XCTAssertEqual(keyring.spaceKeys(), [])
    assertAsksForPassword(try run(["list"]))
    try unlock()
    XCTAssertEqual(keyring.spaceKeys().map(\.permanent), [false])
  }

  /// Unlocks racing in one session: while one is held between finding no key (or no
  /// keyring) and adding its own (strace delays its first add_key), another unlocks to the
  /// end. Both must succeed and both keys stay: the first unlocks of a session each made a
  /// keyring, the later one displacing the other (and its key), and two spaces of one vault
  /// failed with "no kernel keyring is available (add_key: Permission denied)".
  func testRacingUnlocksAllSucceed() throws {
    try requireTool(VaultRunner.strace)
    try addPhoto()
    let other = try VaultRunner.initialized(in: try makeTemporaryFolder(self))
    // The session's first unlocks, of two vaults: no keyring yet.
    let (first, second) = try race(["unlock"], on: vault, password: "correct horse", against: other)
    XCTAssertEqual(first.status, 0, first.stderr)
    XCTAssertEqual(second.status, 0, second.stderr)
    XCTAssertEqual(keyring.spaceKeys().count, 2)
    XCTAssertTrue(try run(["list"]).stdout.contains("gray.jpg"))
    XCTAssertEqual(try run(["list"], on: other).status, 0)
    // Two spaces of one vault: the one that adds its key last is kept.
    XCTAssertEqual(try vault.run(["init"], password: "decoy").status, 0)
    let (held, quick) = try race(["unlock"], on: vault, password: "decoy", against: vault)
    XCTAssertEqual(held.status, 0, held.stderr)
    XCTAssertEqual(quick.status, 0, quick.stderr)
    XCTAssertEqual(keyring.spaceKeys().count, 2)
    XCTAssertTrue(try run(["list"]).stdout.contains("no photos in this space"))
  }

  /// Runs `arguments` on `runner` with `password`, its first add_key held by strace, and
  /// meanwhile the same command on `rival` with the default password, to its end. The hold
  /// grows until the rival ends within it (the point of the test), and the held run is
  /// then let go and waited for.
  func race(_ arguments: [String], on runner: VaultRunner, password: String, against rival: VaultRunner)
    throws
    -> (held: VaultRun, rival: VaultRun)
  {
    for hold in [3, 10, 30] {
      let log = folder + "/strace-" + UUID().uuidString
      let wrapper = [
        "/usr/bin/keyctl", "session", keyring.name, "/usr/bin/strace", "-f", "-qq", "-o", log, "-e",
        "trace=add_key",
        "-e", "inject=add_key:delay_enter=\(hold * 1_000_000):when=1",
      ]
      let heldRun = try runner.start(arguments, password: password, through: wrapper)
      let traced = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
      // strace writes the call as it enters it, and its result when it returns.
      XCTAssertTrue(try waitUntil { traced().contains("add_key(") || !heldRun.process.isRunning }, traced())
      let rivalRun = try run(arguments, password: "correct horse", on: rival)
      let stillHeld = !traced().contains(" = ")
      var held = try heldRun.finish()
      if let joined = held.stderr.firstRange(of: #/^Joined session keyring: [0-9]+\n/#) {
        held.stderr.removeSubrange(joined)
      }
      if stillHeld { return (held, rivalRun) }
      try run(["lock", "--all"])
    }
    throw XCTSkip("the rival unlock never ended within 30 s of the other's hold: the race was not run")
  }

  // MARK: What the session keyring may hold that vault did not put there

  /// pam_keyinit links the user keyring, which every process of the user may write from any
  /// session, into each session keyring. A keyring named vault planted there (or linked in
  /// the session keyring with other permissions) must never receive the key: unlock used
  /// to find it with keyctl_search and put its secret and key in it, for another session
  /// to read.
  func testUnlockNeverWritesToAVaultKeyringItDidNotMake() throws {
    for nested in [true, false] {
      let session = try TestKeyring()
      defer { session.destroy() }
      let parent =
        nested
        ? session.makeKeyring("user-keyring-stand-in", in: session.serial, 0x1f3f_0000) : session.serial
      let planted = session.makeKeyring("vault", in: parent, 0x3f3f_0000)
      let unlocked = try session.run(vault, ["unlock"], password: "correct horse")
      XCTAssertEqual(unlocked.status, 0, unlocked.stderr)
      XCTAssertEqual(TestKeyring.members(of: planted), [], nested ? "nested" : "direct")
      let own = try XCTUnwrap(session.vaultKeyring(), nested ? "nested" : "direct")
      XCTAssertNotEqual(own, planted)
      XCTAssertEqual(TestKeyring.members(of: own).count, 2)
      XCTAssertEqual(try session.run(vault, ["list"], password: nil).status, 0)
    }
  }

  /// A key planted in a nested keyring (the user keyring, as another session of the user
  /// can) is neither used, nor dropped, nor even read: the command asks for the password.
  func testKeyPlantedInANestedKeyringIsIgnored() throws {
    try addPhoto()
    let userKeyring = keyring.makeKeyring("user-keyring-stand-in", in: keyring.serial, 0x1f3f_0000)
    let planted = keyring.makeKeyring("vault", in: userKeyring, 0x3f3f_0000)
    let secret = (0..<32).map { _ in UInt8.random(in: 0...255) }
    keyring.addUserKey("vault:secret", secret, in: planted, 0x3f3f_0000)
    let space = try XCTUnwrap(vault.spaceFolders().first)
    let forged = keyring.addUserKey(
      try keyName(secret: secret), forgedPayload(tag: URL(fileURLWithPath: space).lastPathComponent),
      in: planted,
      0x3f3f_0000)
    let listed = try run(["list"])
    assertAsksForPassword(listed)
    XCTAssertFalse(listed.stderr.contains("warning"), listed.stderr)
    XCTAssertEqual(TestKeyring.members(of: planted).count, 2)
    XCTAssertTrue(TestKeyring.members(of: planted).contains(forged))
    // The victim's own unlock then works beside it, in a keyring of its own.
    try unlock()
    XCTAssertTrue(try run(["list"]).stdout.contains("gray.jpg"))
    XCTAssertEqual(TestKeyring.members(of: planted).count, 2)
  }

  /// A key whose payload names the space but holds another wrapping key (forged: the tag
  /// and the name are no secret in the session) does not unwrap the space's key file: it
  /// is dropped and the password asked for. With version 1's master key, such a key was
  /// used: "index damaged", and photos added after a repair were the forger's to read.
  func testForgedKeyIsDroppedBeforeItOpensAnything() throws {
    try addPhoto()
    try unlock()
    let ring = try XCTUnwrap(keyring.vaultKeyring())
    let kept = try XCTUnwrap(keyring.spaceKeys().first)
    let space = try XCTUnwrap(vault.spaceFolders().first)
    keyctl_invalidate(
      try XCTUnwrap(TestKeyring.members(of: ring).first { keyring.describe($0)?.name == kept.description }))
    keyring.addUserKey(
      kept.description, forgedPayload(tag: URL(fileURLWithPath: space).lastPathComponent), in: ring,
      0x2b00_0000)
    XCTAssertEqual(keyring.spaceKeys().count, 1)
    let listed = try run(["list"])
    XCTAssertTrue(
      listed.stderr.hasPrefix("warning: the session key no longer opens its space"), listed.stderr)
    XCTAssertFalse(listed.stderr.contains("verify --repair"), listed.stderr)
    assertAsksForPassword(listed)
    XCTAssertEqual(keyring.spaceKeys(), [])
  }

  /// A space whose index does not open with the session key's master key is never reported
  /// damaged on the key's word (nor tidied by a writer): the key is dropped and the password
  /// decides, which then reports the damage.
  func testDamagedIndexUnderASessionKeyAsksForThePassword() throws {
    try addPhoto()
    try unlock()
    let journal = try XCTUnwrap(vault.spaceFolders().first) + "/Journal"
    for name in try FileManager.default.contentsOfDirectory(atPath: journal) {
      var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: journal + "/" + name)))
      bytes[bytes.count / 2] ^= 0x40
      try Data(bytes).write(to: URL(fileURLWithPath: journal + "/" + name))
    }
    for command in [["list"], ["add", fixturesPath + "/gray.png"], ["verify"]] {
      try unlock()
      let ran = try run(command)
      XCTAssertTrue(
        ran.stderr.hasPrefix("warning: the session key no longer opens its space"),
        "\(command): \(ran.stderr)")
      assertAsksForPassword(ran)
      XCTAssertEqual(keyring.spaceKeys(), [], "\(command)")
    }
    let withPassword = try run(["list"], password: "correct horse")
    XCTAssertNotEqual(withPassword.status, 0)
    XCTAssertTrue(withPassword.stderr.contains("verify --repair"), withPassword.stderr)
  }

  /// A repair rewrites the index under the key that opened the space: it asks for the
  /// password even while the space is unlocked.
  func testRepairAsksForThePassword() throws {
    try addPhoto()
    try unlock()
    XCTAssertEqual(try run(["verify"]).status, 0)
    assertAsksForPassword(try run(["verify", "--repair"]))
    let repaired = try run(["verify", "--repair"], password: "correct horse")
    XCTAssertEqual(repaired.status, 0, repaired.stderr)
  }

  func testInfoOfUnlockedSpace() throws {
    try addPhoto()
    let withPassword = try run(["info"], password: "correct horse")
    XCTAssertEqual(withPassword.status, 0, withPassword.stderr)
    let lines = withPassword.stdout.split(separator: "\n").map(String.init)
    XCTAssertEqual(lines[0], "vault:           \(vault.vault)")
    XCTAssertEqual(lines[1], "format:          vault.json version 1")
    XCTAssertEqual(lines[2], "key derivation:  argon2id13, interactive (opslimit 2, memlimit 64 MiB)")
    XCTAssertEqual(lines[3], "space format:    2")
    XCTAssertEqual(lines[4], "photos:          1 (0 selected)")
    let size = try FileManager.default.attributesOfItem(atPath: fixturesPath + "/gray.jpg")[.size] as! Int
    XCTAssertEqual(
      lines[5],
      "originals:       " + (size < 1000 ? "\(size) B" : String(format: "%.1f kB", Double(size) / 1000)))
    XCTAssertTrue(lines[6].hasPrefix("stored:          "), lines[6])
    XCTAssertEqual(lines.last, "session key:     none for this space")

    try unlock(["--for", "10m", "--max", "2h"])
    let unlocked = try run(["info"])
    XCTAssertEqual(unlocked.status, 0, unlocked.stderr)
    let session = try XCTUnwrap(unlocked.stdout.split(separator: "\n").last)
    XCTAssertNotNil(
      session.wholeMatch(
        of:
          #/session key:     in use, kept until [-0-9]+ [:0-9]+, 10m after each use, at most until [-0-9]+ [:0-9]+/#
      ),
      String(session))
    let givenPassword = try run(["info"], password: "correct horse")
    XCTAssertTrue(
      givenPassword.stdout.contains("session key:     kept for this space (not used: a password was given)"))
  }

  /// Without a password, info prints only what the folder shows anyone, and the same
  /// whatever spaces there are.
  func testInfoWithoutPasswordNeverCountsSpaces() throws {
    let oneSpace = try run(["info", "--no-password"])
    XCTAssertEqual(oneSpace.status, 0, oneSpace.stderr)
    XCTAssertEqual(
      oneSpace.stdout,
      """
      vault:           \(vault.vault)
      format:          vault.json version 1
      key derivation:  argon2id13, interactive (opslimit 2, memlimit 64 MiB)

      """)
    XCTAssertEqual(try vault.run(["init"], password: "decoy").status, 0)
    try unlock()
    XCTAssertEqual(try run(["info", "--no-password"]).stdout, oneSpace.stdout)
    XCTAssertEqual(try run(["info", "--no-password"], password: "decoy").stdout, oneSpace.stdout)
  }

  /// `--max` alone cuts the default idle time to itself, rather than refusing a --for that
  /// was never given; a --for longer than --max is still refused.
  func testMaxAloneCutsTheDefaultIdleTime() throws {
    try unlock(["--max", "10m"])
    XCTAssertTrue(try run(["info"]).stdout.contains(", 10m after each use, "))
    try unlock(["--max", "2h"])
    XCTAssertTrue(try run(["info"]).stdout.contains(", 15m after each use, "))
    XCTAssertEqual(try run(["unlock", "--for", "20m", "--max", "10m"], password: "correct horse").status, 64)
  }

  /// What unlock prints of a lifetime is what --for takes: 90 minutes is "90m", not "1h30m".
  func testPrintedDurationsAreAcceptedBack() throws {
    for given in ["90m", "45s", "2h", "3700s"] {
      let unlocked = try run(["unlock", "--for", given, "--max", "8h"], password: "correct horse")
      XCTAssertEqual(unlocked.status, 0, unlocked.stderr)
      let printed = try XCTUnwrap(
        unlocked.stdout.firstMatch(of: #/, ([0-9a-z]+) after each use/#)?.1, unlocked.stdout)
      XCTAssertEqual(String(printed), given)
      XCTAssertEqual(try run(["unlock", "--for", String(printed)], password: "correct horse").status, 0)
    }
  }

  /// Days are a unit too: docs/USING.md says --max is at most 7 days, and `7d` says so.
  func testLifetimesTakeDays() throws {
    let unlocked = try run(["unlock", "--for", "1d", "--max", "7d"], password: "correct horse")
    XCTAssertEqual(unlocked.status, 0, unlocked.stderr)
    XCTAssertTrue(unlocked.stdout.contains(", 1d after each use"), unlocked.stdout)
    let tooLong = try run(["unlock", "--max", "8d"], password: "correct horse")
    XCTAssertEqual(tooLong.status, 64)
    XCTAssertTrue(tooLong.stderr.contains("--max can be at most 7d (7 days)"), tooLong.stderr)
    // `vault lock` takes no password, and its help does not offer one.
    let help = try run(["lock", "--help"], password: nil)
    XCTAssertFalse(help.stdout.contains("--password-file"), help.stdout)
    XCTAssertEqual(try run(["lock"], password: nil).status, 0)
  }

  /// Where this login has no session keyring of its own, the session keyring is the user's
  /// default one, which every process of the user without one shares: unlock refuses,
  /// before the password, unless told to keep the key there. Run as a user of its own
  /// (root only), in that user's default keyring, so that nobody else's is touched.
  func testUnlockRefusesTheUsersSharedDefaultKeyring() throws {
    guard getuid() == 0 else { throw XCTSkip("needs root to run vault as a user of its own") }
    let user = 61_000 + Int.random(in: 0..<4000)
    let asUser = ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups"]
    // Made on first use: the default keyring joined below must be the real one.
    let makeDefaultKeyring = Process()
    makeDefaultKeyring.executableURL = URL(fileURLWithPath: asUser[0])
    makeDefaultKeyring.arguments = Array(asUser.dropFirst()) + ["/usr/bin/keyctl", "show", "@us"]
    makeDefaultKeyring.standardOutput = FileHandle.nullDevice
    try makeDefaultKeyring.run()
    makeDefaultKeyring.waitUntilExit()
    XCTAssertEqual(makeDefaultKeyring.terminationStatus, 0)
    // The build folder may sit in a home folder other users cannot enter (Debian makes
    // them 0700): the user runs a copy of the binary in the test's folder.
    var asOtherUser = vault!
    asOtherUser.executable = folder + "/vault-binary"
    try FileManager.default.copyItem(atPath: VaultRunner.binary, toPath: asOtherUser.executable)
    XCTAssertEqual(chownTree(folder, to: uid_t(user)), 0)
    let inDefaultKeyring = asUser + ["/usr/bin/keyctl", "session", "_uid_ses.\(user)"]
    func run(_ arguments: [String], password: String? = nil) throws -> VaultRun {
      var run = try asOtherUser.run(arguments, password: password, through: inDefaultKeyring)
      if let joined = run.stderr.firstRange(of: #/^Joined session keyring: [0-9]+\n/#) {
        run.stderr.removeSubrange(joined)
      }
      return run
    }
    defer { _ = try? run(["lock", "--all"]) }

    // No password is given: the refusal comes before it is asked for.
    let refused = try run(["unlock"])
    XCTAssertEqual(refused.status, 1, refused.stdout)
    XCTAssertTrue(
      refused.stderr.hasPrefix("error: this login has no session keyring of its own: "), refused.stderr)
    XCTAssertTrue(refused.stderr.contains("\nhint: run 'keyctl session -'"), refused.stderr)
    XCTAssertEqual(try run(["lock", "--all"]).stdout, "no session keys were kept\n")

    let shared = try run(["unlock", "--shared-keyring"], password: "correct horse")
    XCTAssertEqual(shared.status, 0, shared.stderr)
    XCTAssertEqual(
      shared.stderr,
      "warning: the key is kept in your user's default keyring, which all your processes without a session keyring share\n"
    )
    XCTAssertEqual(try run(["list"]).status, 0)
    XCTAssertEqual(try run(["lock", "--all"]).stdout, "dropped 1 session key\n")
  }

  func testOptionsAreChecked() throws {
    for arguments in [
      ["unlock", "--for", "2h", "--max", "1h"], ["unlock", "--for", "0"], ["unlock", "--max", "8d"],
      ["unlock", "--max", "200h"], ["lock", "--password-file", "x"],
      ["info", "--no-password", "--password-file", "x"],
    ] {
      let refused = try run(arguments, password: "correct horse")
      XCTAssertEqual(refused.status, 64, "\(arguments): \(refused.stderr)")
      XCTAssertEqual(keyring.spaceKeys(), [], "\(arguments)")
    }
  }

  // MARK: Helpers

  /// Gives `path` and everything under it to `owner`; 0, or the first error's errno.
  func chownTree(_ path: String, to owner: uid_t) -> Int32 {
    guard chown(path, owner, gid_t(owner)) == 0 else { return errno }
    guard let names = try? FileManager.default.subpathsOfDirectory(atPath: path) else { return EIO }
    for name in names where lchown(path + "/" + name, owner, gid_t(owner)) != 0 { return errno }
    return 0
  }

  /// The name vault gives this test's vault's key under `secret` (FORMAT.md, "Name").
  func keyName(secret: [UInt8]) throws -> String {
    let header = try String(contentsOfFile: vault.vault + "/vault.json", encoding: .utf8)
    let salt = try XCTUnwrap(
      decodeHex(String(try XCTUnwrap(header.firstMatch(of: #/"salt" : "([0-9a-f]+)"/#)).1)))
    let resolved = try XCTUnwrap(realpath(vault.vault, nil))
    defer { free(resolved) }
    return SessionKeyring.spaceKeyName(
      secret: secret.withUnsafeBytes { SecureBytes(copying: $0) }, resolvedPath: String(cString: resolved),
      salt: salt)
  }

  /// A payload as FORMAT.md lays it out, for the space `tag`, with a wrapping key of the
  /// forger's own (15m after each use, for an hour).
  func forgedPayload(tag: String) -> [UInt8] {
    let deadline = Int64(Date().timeIntervalSince1970) + 3600
    return Array("VLTS".utf8) + [2] + decodeHex(tag)! + (0..<32).map { _ in UInt8.random(in: 0...255) }
      + withUnsafeBytes(of: UInt32(900).bigEndian, Array.init)
      + withUnsafeBytes(of: deadline.bigEndian, Array.init)
  }

  /// Polls `condition` until it holds, for at most two minutes (a bound for a broken build,
  /// not a measure: the events waited for come within seconds).
  func waitUntil(_ condition: () throws -> Bool) throws -> Bool {
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline {
      if try condition() { return true }
      usleep(200_000)
    }
    return false
  }

  /// A wrapper that installs a seccomp filter, then runs vault: with "refuse-keys", add_key,
  /// request_key and keyctl fail with EPERM (a container without a keyring, on this
  /// machine); with "kill-on-set-timeout", keyctl(KEYCTL_SET_TIMEOUT) kills the process, as
  /// a SIGKILL or the OOM killer could at that moment.
  func seccompWrapper(_ mode: String) throws -> [String] {
    let script = folder + "/seccomp.py"
    try Self.seccompScript.write(toFile: script, atomically: true, encoding: .utf8)
    return ["/usr/bin/env", "python3", script, mode]
  }

  static let seccompScript = #"""
    import ctypes, errno, os, platform, struct, sys
    arch, (add_key, request_key, keyctl) = {
        "x86_64": (0xC000003E, (248, 249, 250)),
        "aarch64": (0xC00000B7, (217, 218, 219)),
    }[platform.machine()]
    ALLOW, ERRNO, KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
    LOAD, JUMP_IF_EQUAL, RETURN = 0x20, 0x15, 0x06
    KEYCTL_SET_TIMEOUT = 15
    programs = {
        "refuse-keys": [
            (LOAD, 0, 0, 4),                      # seccomp_data.arch
            (JUMP_IF_EQUAL, 1, 0, arch),
            (RETURN, 0, 0, ERRNO | errno.EPERM),  # another ABI's numbers mean other calls
            (LOAD, 0, 0, 0),                      # seccomp_data.nr
            (JUMP_IF_EQUAL, 3, 0, add_key),
            (JUMP_IF_EQUAL, 2, 0, request_key),
            (JUMP_IF_EQUAL, 1, 0, keyctl),
            (RETURN, 0, 0, ALLOW),
            (RETURN, 0, 0, ERRNO | errno.EPERM),
        ],
        "kill-on-set-timeout": [
            (LOAD, 0, 0, 4),
            (JUMP_IF_EQUAL, 1, 0, arch),
            (RETURN, 0, 0, ALLOW),
            (LOAD, 0, 0, 0),
            (JUMP_IF_EQUAL, 0, 3, keyctl),
            (LOAD, 0, 0, 16),                     # the low half of seccomp_data.args[0]
            (JUMP_IF_EQUAL, 0, 1, KEYCTL_SET_TIMEOUT),
            (RETURN, 0, 0, KILL_PROCESS),
            (RETURN, 0, 0, ALLOW),
        ],
    }
    program = programs[sys.argv[1]]
    filters = b"".join(struct.pack("HBBI", *instruction) for instruction in program)
    buffer = ctypes.create_string_buffer(filters)
    class Program(ctypes.Structure):
        _fields_ = [("length", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
    fprog = Program(len(program), ctypes.addressof(buffer))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:
        sys.exit("seccomp: " + os.strerror(ctypes.get_errno()))
    os.execv(sys.argv[2], sys.argv[2:])
    """#
}

/// A session keyring for one test. It is made in the test process's own process keyring
/// (never its session keyring), so it lives until `destroy`; each vault process joins it
/// by its random name (`keyctl session NAME`) as its session keyring. The test process
/// possesses it through its process keyring, so it reads the keys' lines in /proc/keys.
final class TestKeyring {
  let name = "vault-test-" + UUID().uuidString.lowercased()
  let serial: key_serial_t

  init() throws {
    serial = add_key("keyring", name, nil, 0, KEY_SPEC_PROCESS_KEYRING)
    guard serial > 0 else {
      throw missing("no kernel keyring here: add_key: \(String(cString: strerror(errno)))")
    }
    // Other processes of the user may join it by name (search permission), nothing more.
    XCTAssertEqual(keyctl_setperm(serial, key_perm_t(KEY_POS_ALL | KEY_USR_SEARCH)), 0)
  }

  /// Unlinks and invalidates it: the kernel drops it and every key only it holds.
  func destroy() {
    keyctl_clear(serial)
    keyctl_unlink(serial, KEY_SPEC_PROCESS_KEYRING)
    keyctl_invalidate(serial)
  }

  func run(_ runner: VaultRunner, _ arguments: [String], password: String?, through wrapper: [String] = [])
    throws -> VaultRun
  {
    var run = try runner.run(
      arguments, password: password, through: ["/usr/bin/keyctl", "session", name] + wrapper)
    // keyctl says which keyring it joined; that is not vault's output.
    if let joined = run.stderr.firstRange(of: #/^Joined session keyring: [0-9]+\n/#) {
      run.stderr.removeSubrange(joined)
    }
    return run
  }

  /// A key as /proc/keys shows it.
  struct Key: Equatable {
    var type: String
    var description: String
    var permissions: String
    /// Its timeout has passed (the kernel removes it a while later).
    var expired: Bool
    /// It has no timeout.
    var permanent: Bool
  }

  /// The live keys this keyring holds, and the keys of the keyrings it holds: the test
  /// process possesses them (through its process keyring), so /proc/keys shows them.
  func keys() -> [Key] {
    var serials = Set<key_serial_t>()
    var rings = [serial]
    while let ring = rings.popLast() {
      for member in Self.members(of: ring) where serials.insert(member).inserted {
        rings.append(member)
      }
    }
    let lines = ((try? String(contentsOfFile: "/proc/keys", encoding: .utf8)) ?? "").split(separator: "\n")
    return lines.compactMap { line in
      // serial flags usage timeout permissions uid gid type description: summary
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 9, let number = UInt32(fields[0], radix: 16),
        serials.contains(key_serial_t(bitPattern: number)),
        // Revoked, dead or invalidated: gone, though not yet collected.
        !fields[1].contains(where: { "RDi".contains($0) })
      else { return nil }
      return Key(
        type: String(fields[7]), description: String(fields[8].dropLast()), permissions: String(fields[4]),
        expired: fields[3] == "expd", permanent: fields[3] == "perm")
    }
  }

  /// The space keys vault keeps: user keys named vault:<hex>.
  func spaceKeys() -> [Key] {
    keys().filter {
      $0.type == "user" && $0.description.hasPrefix("vault:") && $0.description != "vault:secret"
    }
  }

  /// Makes a keyring `name` in `parent` with `permissions`, as another program of the user
  /// could.
  @discardableResult
  func makeKeyring(_ name: String, in parent: key_serial_t, _ permissions: UInt32) -> key_serial_t {
    let ring = add_key("keyring", name, nil, 0, parent)
    XCTAssertGreaterThan(ring, 0, String(cString: strerror(errno)))
    XCTAssertEqual(keyctl_setperm(ring, permissions), 0)
    return ring
  }

  /// Adds a user key `name` holding `payload` to `ring`, with `permissions`.
  @discardableResult
  func addUserKey(_ name: String, _ payload: [UInt8], in ring: key_serial_t, _ permissions: UInt32)
    -> key_serial_t
  {
    let key = add_key("user", name, payload, payload.count, ring)
    XCTAssertGreaterThan(key, 0, String(cString: strerror(errno)))
    XCTAssertEqual(keyctl_setperm(key, permissions), 0)
    return key
  }

  /// A key's type and description.
  func describe(_ serial: key_serial_t) -> (type: String, name: String)? {
    var buffer = [CChar](repeating: 0, count: 512)
    guard keyctl_describe(serial, &buffer, buffer.count) > 0 else { return nil }
    let fields = String(nulTerminated: buffer).split(
      separator: ";", maxSplits: 4, omittingEmptySubsequences: false)
    return fields.count == 5 ? (String(fields[0]), String(fields[4])) : nil
  }

  /// The keyring named vault linked directly in this one.
  func vaultKeyring() -> key_serial_t? {
    Self.members(of: serial).first { describe($0).map { $0 == ("keyring", "vault") } ?? false }
  }

  /// The keys `ring` holds directly.
  static func members(of ring: key_serial_t) -> [key_serial_t] {
    var members = [key_serial_t](repeating: 0, count: 64)
    let bytes = members.withUnsafeMutableBytes {
      keyctl_read(ring, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count)
    }
    return bytes > 0 ? Array(members.prefix(min(bytes / 4, members.count))) : []
  }
}
