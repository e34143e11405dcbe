import Foundation
import XCTest

/// What a security review and a new user found in version 1 (issue 8), each through the
/// built binary: escaped names, password input, honest counts, choices, early argument
/// checks.
final class HardeningTests: XCTestCase {
  var folder = ""
  var vault: VaultRunner!
  /// A name that would retitle and clear the terminal, colour it and forge a line.
  let hostileName = "a\u{1B}]0;PWNED\u{07}\u{1B}[2J\u{1B}[31mred\nsecond\r\u{202E}gpj.jpg"
  let hostileShown = "a\\x1b]0;PWNED\\x07\\x1b[2J\\x1b[31mred\\nsecond\\r\\u202egpj.jpg"
  /// Its shown name (the file an export writes): each control character and the override as "_".
  let hostileSafe = "a_]0;PWNED__[2J_[31mred_second__gpj.jpg"

  override func setUpWithError() throws {
    folder = try makeTemporaryFolder(self)
    vault = try VaultRunner.initialized(in: folder)
  }

  func addFixtures(_ names: [String]) throws {
    let run = try vault.run(["add"] + names.map { fixturesPath + "/" + $0 })
    XCTAssertEqual(run.status, 0, run.stderr)
  }

  /// No byte of `text` could act on a terminal: no controls but line feeds, no bidi overrides.
  func assertInert(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
    let bad = text.unicodeScalars.filter { $0 != "\n" && TerminalSafeTextProbe.isUnsafe($0) }
    XCTAssertTrue(
      bad.isEmpty, "\(what) emits \(bad.map { String($0.value, radix: 16) }): \(text)", file: file, line: line
    )
  }

  // MARK: 1. Names never reach the terminal raw

  func testHostileNamesAreShownEscapedEverywhere() throws {
    let photos = folder + "/in"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: photos + "/" + hostileName)
    let add = try vault.run(["add", photos])
    XCTAssertEqual(add.status, 0, add.stderr)
    assertInert(add.stdout, "add")
    XCTAssertTrue(add.stdout.contains("added \(photos)/\(hostileShown)"), add.stdout)

    for arguments in [
      ["list"], ["list", "--per-row", "2"], ["list", "--per-row", "2", "--mode", "symbols"], ["verify"],
      ["export", "1", "--to", "out"],
    ] {
      let run = try vault.run(arguments, environment: ["TERM": "xterm-256color"])
      XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)")
      if arguments.contains("symbols") {
        // The grid's own colour sequences stay; the label line is escaped.
        let labels = run.stdout.split(separator: "\n").filter { $0.contains("PWNED") }
        XCTAssertEqual(labels.count, 1, run.stdout)
        XCTAssertFalse(labels[0].contains("\u{1B}]0;"), "\(labels[0])")
        // Named by its shown name, the file name an export writes: no control character left.
        XCTAssertTrue(labels[0].contains("1 \(hostileSafe)"), "\(labels[0])")
      } else {
        assertInert(run.stdout + run.stderr, "\(arguments)")
        XCTAssertTrue(run.stdout.contains("PWNED"), "\(arguments): \(run.stdout)")
      }
    }
    // JSON keeps the exact name imported, escaped as JSON, beside the name shown (the one
    // the export writes), and prints safely too.
    let json = try vault.run(["list", "--json"])
    assertInert(json.stdout, "list --json")
    XCTAssertEqual(try vault.listJSON().first?["importedName"] as? String, hostileName)
    XCTAssertEqual(try vault.listJSON().first?["name"] as? String, hostileSafe)
    // The record keeps the exact name; the file exported has each control character and
    // the bidirectional override as "_" (see PathComponent), so that no program that lists
    // or copies it meets them.
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder + "/out"),
      [hostileSafe])
    // Errors that name the photo are escaped too.
    let missing = try vault.run(["add", photos + "/" + hostileName + ".missing"])
    assertInert(missing.stderr, "an error")
    XCTAssertTrue(missing.stderr.hasPrefix("error: '"), missing.stderr)
  }

  func testTheDeletePromptShowsTheNameEscaped() throws {
    let photos = folder + "/in"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: photos + "/" + hostileName)
    XCTAssertEqual(try vault.run(["add", photos]).status, 0)
    let session = try TmuxSession(
      "\(VaultRunner.binary) delete 1", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse", "TERM": "xterm-256color"])
    let screen = try session.wait(for: "[y/N]")
    XCTAssertTrue(screen.contains("Move '\(hostileSafe)' to Recently Deleted"), screen)
    try session.send("n", "Enter")
    XCTAssertTrue(try session.waitUntilFinished().contains("nothing deleted"))
    XCTAssertEqual(try vault.listJSON().count, 1)
  }

  func testSayingNoIsNotAnError() throws {
    try addFixtures(["photo.jpg"])
    let session = try TmuxSession(
      "\(VaultRunner.binary) delete 1; echo status=$?", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"])
    try session.wait(for: "[y/N]")
    try session.send("n", "Enter")
    let screen = try session.waitUntilFinished()
    XCTAssertTrue(screen.contains("nothing deleted\nstatus=0"), screen)
    XCTAssertFalse(screen.contains("error:"), screen)
  }

  func testSmallThingsANewUserMet() throws {
    try addFixtures(["photo.jpg", "gray.png"])
    // A vault inside a space's folder would look like damage to the space.
    let space = try FileManager.default.contentsOfDirectory(atPath: vault.vault).first { $0 != "vault.json" }!
    let nested = try vault.run(["init", "--vault", vault.vault + "/" + space], password: "other one")
    XCTAssertEqual(nested.status, 1)
    XCTAssertTrue(nested.stderr.contains("inside the vault at '\(vault.vault)'"), nested.stderr)
    XCTAssertFalse(FileManager.default.fileExists(atPath: vault.vault + "/" + space + "/vault.json"))
    // Too many cells a row is known before the password.
    let tooMany = try vault.run(["list", "--per-row", "30"], password: nil)
    XCTAssertEqual(tooMany.status, 64)
    XCTAssertTrue(tooMany.stderr.contains("--per-row 10 or less"), tooMany.stderr)
    // An empty item in a list is named with its whole argument.
    XCTAssertTrue(
      try vault.run(["select", "1,,2"]).stderr.hasPrefix("error: '1,,2': an empty item in the list"))
    XCTAssertEqual(try vault.run(["select", "--all"]).status, 0)
    XCTAssertEqual(try vault.run(["unselect", "--all"]).stdout, "0 of 2 photos selected\n")
    // The largest count there is lists what there is (the security review: it overflowed).
    for selected in [[], ["--selected"]] {
      let huge = try vault.run(["list", "--from", "2", "--count", String(Int.max)] + selected)
      XCTAssertEqual(huge.status, 0, huge.stderr)
    }
    XCTAssertEqual(
      try vault.listJSON(["--from", "2", "--count", String(Int.max)]).count, 1, "photo 2 of 2")
  }

  /// A photo reported exported into a folder export made survives a power cut only if
  /// the new folders' own entries are flushed too.
  func testFoldersExportMakesAreFlushedIntoTheirParents() throws {
    let strace = "/usr/bin/strace"
    try requireTool(strace)
    try addFixtures(["gray.png"])
    let traced = VaultRunner(vault: vault.vault, workingDirectory: folder)
    let trace = folder + "/trace"
    let run = try traced.run(
      ["export", "1", "--to", "a/b/c"],
      through: [strace, "-f", "-y", "-e", "trace=mkdir,fsync", "-o", trace])
    XCTAssertEqual(run.status, 0, run.stderr)
    let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
    let realFolder = (try? FileManager.default.destinationOfSymbolicLink(atPath: folder)) ?? folder
    for (made, parent) in [("a", realFolder), ("a/b", realFolder + "/a"), ("a/b/c", realFolder + "/a/b")] {
      guard let mkdir = calls.firstIndex(where: { $0.contains("mkdir(\"\(made)\"") }) else {
        return XCTFail("no mkdir of \(made): \(calls)")
      }
      XCTAssertTrue(
        calls[mkdir...].contains { $0.contains("fsync(") && $0.contains("<\(parent)>") },
        "\(made) made but its parent \(parent) never flushed after: \(calls)")
    }
  }

  func testVerifyPointsToTheWayOutOfADamagedOriginal() throws {
    try addFixtures(["photo.jpg", "gray.png"])
    let ids = try vault.listJSON().compactMap { $0["id"] as? String }
    let space = try FileManager.default.contentsOfDirectory(atPath: vault.vault).first { $0 != "vault.json" }!
    let original = vault.vault + "/" + space + "/Photo/" + ids[1]
    var bytes = try fileBytes(original)
    bytes[bytes.count - 20] ^= 1
    try writeBytes(bytes, to: original)
    _ = try vault.run(["verify", "--repair"])
    let verify = try vault.run(["verify", "--quiet"])
    XCTAssertEqual(verify.status, 1)
    XCTAssertFalse(verify.stderr.contains("--repair"), "repair cannot help: \(verify.stderr)")
    // By name and id: a number moves when photos are added or dated.
    let name = try XCTUnwrap(try vault.listJSON()[1]["name"] as? String)
    XCTAssertTrue(
      verify.stderr.contains(
        "hint: restore '\(name)' (photo 2, id \(ids[1])) from a backup, or remove it with 'vault delete --now \(ids[1])'"
      ),
      verify.stderr)
  }

  func testArgumentsWithLineBreaksCannotForgeErrorLines() throws {
    for arguments in [
      ["list", "--per-row", "3\nerror: forged line"], ["delete", "1\nerror: forged", "--yes"],
      ["x\nerror: f"],
    ] {
      let run = try vault.run(arguments)
      XCTAssertEqual(run.status, 64, "\(arguments)")
      XCTAssertFalse(
        run.stderr.split(separator: "\n").contains { $0.hasPrefix("error: f") }, "\(arguments): \(run.stderr)"
      )
      XCTAssertTrue(run.stderr.contains("\\nerror: f"), run.stderr)
    }
  }

  // MARK: 9–12. Password input

  func testAPasswordFileBeatsTheEnvironmentAndReadsPipesAndStandardInput() throws {
    try addFixtures(["photo.jpg"])
    try "correct horse\n".write(toFile: folder + "/pw", atomically: true, encoding: .utf8)
    let fromFile = try vault.run(["list", "--password-file", folder + "/pw"], password: "wrong")
    XCTAssertEqual(fromFile.status, 0, "an explicit --password-file wins: \(fromFile.stderr)")
    XCTAssertEqual(try vault.run(["list", "--password-file", folder + "/pw"], password: "").status, 0)
    let fromStdin = try vault.run(
      ["list", "--password-file", "-"], password: nil, input: "correct horse\nmore\n")
    XCTAssertEqual(fromStdin.status, 0, fromStdin.stderr)
    XCTAssertTrue(fromStdin.stdout.contains("photo.jpg"))

    // A FIFO, as process substitution makes: read with read(), not as a regular file.
    let fifo = folder + "/pw.fifo"
    XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    let writer = Thread {
      let descriptor = open(fifo, O_WRONLY)
      _ = "correct horse\n".withCString { write(descriptor, $0, strlen($0)) }
      close(descriptor)
    }
    writer.start()
    let fromFIFO = try vault.run(["list", "--password-file", fifo], password: nil)
    XCTAssertEqual(fromFIFO.status, 0, fromFIFO.stderr)

    let folderAsFile = try vault.run(["list", "--password-file", folder], password: nil)
    XCTAssertEqual(folderAsFile.status, 1)
    XCTAssertEqual(folderAsFile.stderr, "error: '\(folder)': cannot read password file: Is a directory\n")
    try writeBytes(Array("correct\0horse\n".utf8), to: folder + "/nul")
    let withNUL = try vault.run(["list", "--password-file", folder + "/nul"], password: nil)
    XCTAssertEqual(withNUL.status, 1)
    XCTAssertTrue(withNUL.stderr.contains("it contains a NUL byte"), withNUL.stderr)
    let absent = try vault.run(["list", "--password-file", folder + "/nope"], password: "correct horse")
    XCTAssertEqual(
      absent.stderr, "error: '\(folder)/nope': cannot read password file: No such file or directory\n")
  }

  func testThePasswordIsAskedOnTheTerminalEvenWhenStdinIsAPipe() throws {
    try addFixtures(["photo.jpg"])
    // From a pipe; and `--password-file -` on a terminal asks with echo off rather than
    // show the password as it is typed.
    for command in [
      "echo photo.jpg | \(VaultRunner.binary) list", "\(VaultRunner.binary) list --password-file -",
    ] {
      let session = try TmuxSession(command, in: folder, environment: ["VAULT_DIR": vault.vault])
      try session.wait(for: "Password:")
      try session.type("correct horse")
      try session.send("Enter")
      let screen = try session.waitUntilFinished()
      XCTAssertTrue(screen.contains("1 [ ] photo.jpg"), "\(command): \(screen)")
      XCTAssertFalse(screen.contains("correct horse"), "\(command): the password was echoed")
    }

    // Ctrl-C at the prompt ends the command, and the terminal echoes again.
    let interrupted = try TmuxSession(
      // The shell catches SIGINT itself, so that it lives on to run stty.
      "trap true INT; \(VaultRunner.binary) list; stty -a > stty.txt", in: folder,
      environment: ["VAULT_DIR": vault.vault])
    try interrupted.wait(for: "Password:")
    try interrupted.send("C-c")
    try interrupted.waitUntilFinished()
    let settings = try String(contentsOfFile: folder + "/stty.txt", encoding: .utf8)
    XCTAssertTrue(settings.contains(" echo "), settings)
    XCTAssertFalse(settings.contains("-echo "), settings)

    let endOfInput = try TmuxSession(
      "\(VaultRunner.binary) list < /dev/null", in: folder, environment: ["VAULT_DIR": vault.vault])
    try endOfInput.wait(for: "Password:")
    try endOfInput.send("C-d")
    XCTAssertTrue(try endOfInput.waitUntilFinished().contains("error: no password was entered"))
  }

  func testTheEnvironmentPasswordIsWipedOnceRead() throws {
    try addFixtures(["photo.jpg"])
    let session = try TmuxSession(
      "\(VaultRunner.binary) delete 1", in: folder,
      environment: ["VAULT_DIR": vault.vault, "VAULT_PASSWORD": "correct horse"])
    try session.wait(for: "[y/N]")
    // vault waits at its prompt, long after reading the password: look at its environment.
    // Only this test's vault counts (by its VAULT_DIR): other tests may run a delete meanwhile.
    let processes = try FileManager.default.contentsOfDirectory(atPath: "/proc").filter { Int($0) != nil }
    let running = processes.filter { pid in
      let arguments = (try? fileBytes("/proc/\(pid)/cmdline")) ?? []
      let environment = (try? fileBytes("/proc/\(pid)/environ")) ?? []
      return String(decoding: arguments, as: UTF8.self).hasPrefix(VaultRunner.binary + "\0delete")
        && environment.split(separator: 0).contains {
          String(decoding: $0, as: UTF8.self) == "VAULT_DIR=" + vault.vault
        }
    }
    XCTAssertEqual(running.count, 1, "\(running)")
    for pid in running {
      let environment = try fileBytes("/proc/\(pid)/environ")
      XCTAssertFalse(String(decoding: environment, as: UTF8.self).contains("correct horse"))
      XCTAssertTrue(String(decoding: environment, as: UTF8.self).contains("VAULT_DIR="), "environ was read")
    }
    try session.send("n", "Enter")
    try session.waitUntilFinished()
  }

  func testPasswordsAreNormalizedSoEitherFormOfAnAccentOpensTheSpace() throws {
    let composed = "caf\u{E9} cr\u{E8}me"
    let decomposed = "cafe\u{301} cre\u{300}me"
    XCTAssertEqual(try vault.run(["init"], password: composed).status, 0)
    XCTAssertEqual(try vault.run(["add", fixturesPath + "/gray.png"], password: decomposed).status, 0)
    let list = try vault.run(["list"], password: composed)
    XCTAssertTrue(list.stdout.contains("gray.png"), list.stdout + list.stderr)
    XCTAssertEqual(try vault.run(["init"], password: decomposed).status, 1, "the same space")
  }

  func testInitWarnsOfAShortPasswordAndPointsToTheRecoveryKey() throws {
    let short = try vault.run(["init"], password: "abc")
    XCTAssertEqual(short.status, 0)
    XCTAssertTrue(short.stderr.contains("warning: the password has fewer than 8 characters"), short.stderr)
    XCTAssertTrue(short.stderr.contains("keep it apart from the vault"), short.stderr)
    let long = try vault.run(["init"], password: "a longer passphrase")
    XCTAssertFalse(long.stderr.contains("fewer than 8"), long.stderr)
    // One hint about the recovery key, not two that say much the same.
    XCTAssertEqual(long.stderr.components(separatedBy: "hint:").count, 2, long.stderr)
    XCTAssertEqual(long.stderr.components(separatedBy: "'vault recover'").count, 2, "said once")
  }

  // MARK: 13–14. Honest output

  func testDeleteCountsWhatIsLeft() throws {
    try addFixtures(["photo.jpg", "gray.png", "gray.jpg", "palette.png"])
    // Each deleted photo is named first.
    let names = try vault.listJSON().compactMap { $0["name"] as? String }
    XCTAssertEqual(
      try vault.run(["delete", "3", "--yes"]).stdout,
      "deleted '\(names[2])'\nmoved 1 photo to Recently Deleted (kept 30 days); 3 left\n")
    XCTAssertEqual(try vault.run(["select", "1,2"]).status, 0)
    XCTAssertEqual(
      try vault.run(["delete", "--selected", "--yes"]).stdout,
      "deleted '\(names[0])'\ndeleted '\(names[1])'\nmoved 2 photos to Recently Deleted (kept 30 days); 1 left\n"
    )
    XCTAssertEqual(
      try vault.run(["delete", "--all", "--yes"]).stdout,
      "deleted '\(names[3])'\nmoved 1 photo to Recently Deleted (kept 30 days); 0 left\n")
    XCTAssertEqual(try vault.listJSON().count, 0)
  }

  func testFilesThatAreNotPhotosAreSkippedInFoldersButNamedOnTheCommandLine() throws {
    let photos = folder + "/card"
    try FileManager.default.createDirectory(atPath: photos + "/DCIM", withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: photos + "/DCIM/a.jpg")
    try "notes".write(toFile: photos + "/README", atomically: true, encoding: .utf8)
    // Audio is an ISO media file too, like HEIC and videos, but of other brands.
    try writeBytes(
      [0, 0, 0, 24] + Array("ftypM4A ".utf8) + [0, 0, 2, 0] + Array("M4A isom".utf8)
        + Array(repeating: 7, count: 80),
      to: photos + "/DCIM/voice.m4a")
    // A TIFF is an image vault knows of but does not import.
    try writeBytes([0x49, 0x49, 0x2A, 0x00] + Array(repeating: 0, count: 20), to: photos + "/b.tif")
    let run = try vault.run(["add", photos])
    XCTAssertEqual(run.status, 0, run.stderr)
    XCTAssertEqual(run.stderr, "")
    XCTAssertTrue(run.stdout.contains("added 1 photo, skipped 0 duplicates, failed 0\n"), run.stdout)
    XCTAssertTrue(
      run.stdout.contains("skipped 3 files that are not JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV"),
      run.stdout)

    let verbose = try vault.run(["add", "--verbose", photos])
    XCTAssertTrue(
      verbose.stdout.contains(
        "skipped '\(photos)/README': not a JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV file"),
      verbose.stdout)
    XCTAssertTrue(
      verbose.stdout.contains(
        "skipped '\(photos)/b.tif': TIFF images are not supported (vault imports JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 and MOV)"
      ),
      verbose.stdout)
    XCTAssertTrue(verbose.stdout.contains("skipped '\(photos)/DCIM/voice.m4a': not a JPEG"), verbose.stdout)

    let named = try vault.run(["add", photos + "/b.tif", photos + "/README"])
    XCTAssertEqual(named.status, 1)
    XCTAssertTrue(named.stderr.contains("'\(photos)/b.tif': TIFF images are not supported"), named.stderr)
    XCTAssertTrue(
      named.stderr.contains("'\(photos)/README': not a JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV file"),
      named.stderr)
  }

  /// A file named as a photo whose bytes are not one is damaged, not another kind of file:
  /// it fails (named, counted, exit status 1) and `--move` leaves it, as docs/USING.md says.
  func testFilesNamedAsPhotosThatAreNotPhotosFailInFolders() throws {
    let photos = folder + "/card"
    try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: fixturesPath + "/photo.jpg", toPath: photos + "/good.jpg")
    let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixturesPath + "/gray.png")))
    // PngSuite's xcrn0g04 (a CR LF in the signature turned into LF) and xs1n0g01 (the high
    // bit of the signature's first byte cleared), made from a PNG of ours.
    var crlf = png
    crlf.replaceSubrange(4..<6, with: [0x0A])
    var highBit = png
    highBit[0] = 0x09
    try writeBytes(crlf, to: photos + "/xcrn0g04.png")
    try writeBytes(highBit, to: photos + "/xs1n0g01.PNG")
    try writeBytes(Array("<!DOCTYPE html><title>404</title>".utf8), to: photos + "/error.JPG")
    // A cloud client's stand-in for a photo not downloaded yet: a few bytes of a property list.
    try writeBytes(Array("bplist00".utf8) + [0xD1, 0x01, 0x02, 0x51, 0x61], to: photos + "/placeholder.heic")
    try "notes".write(toFile: photos + "/README", atomically: true, encoding: .utf8)
    let damaged = ["xcrn0g04.png", "xs1n0g01.PNG", "error.JPG", "placeholder.heic"]

    let run = try vault.run(["add", "--move", photos])
    XCTAssertEqual(run.status, 1, run.stderr)
    XCTAssertTrue(run.stdout.contains("added 1 photo, skipped 0 duplicates, failed 4"), run.stdout)
    XCTAssertTrue(
      run.stdout.contains("skipped 1 file that is not JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV"),
      run.stdout)
    XCTAssertTrue(run.stderr.contains("error: 4 files could not be imported"), run.stderr)
    for name in damaged {
      XCTAssertTrue(
        run.stderr.contains("'\(photos)/\(name)': not a JPEG, PNG, HEIC, GIF, WebP, AVIF, MP4 or MOV file"),
        run.stderr
      )
      XCTAssertTrue(FileManager.default.fileExists(atPath: photos + "/" + name), "\(name) was removed")
    }
    XCTAssertTrue(FileManager.default.fileExists(atPath: photos + "/README"))
    XCTAssertFalse(FileManager.default.fileExists(atPath: photos + "/good.jpg"), "the photo was moved")
  }

  // MARK: 15–16. Errors before the password, and the right errors

  func testAnUnreadableVaultFolderSaysPermissionDenied() throws {
    guard getuid() == 0 else { throw XCTSkip("needs root to run vault as another user") }
    let setpriv = "/usr/bin/setpriv"
    try requireTool(setpriv)
    XCTAssertEqual(chmod(folder, 0o755), 0)
    // The vault folder is root's, mode 0700: the user nobody cannot look inside.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: setpriv)
    process.arguments = [
      "--reuid=65534", "--regid=65534", "--clear-groups", VaultRunner.binary, "list", "--vault", vault.vault,
    ]
    process.environment = ["VAULT_PASSWORD": "correct horse", "PATH": "/usr/bin:/bin"]
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    if stderr.contains("Permission denied") && stderr.contains("execute") { throw XCTSkip(stderr) }
    XCTAssertEqual(process.terminationStatus, 1)
    XCTAssertEqual(stderr, "error: '\(vault.vault)': Permission denied\n")
  }

  func testOneCharacterFolderNamesWork() throws {
    // Foundation's deletingLastPathComponent traps on them.
    XCTAssertEqual(try vault.run(["init", "--vault", "v", "--kdf", "interactive"]).status, 0)
    XCTAssertEqual(try vault.run(["add", "--vault", "v/", fixturesPath + "/gray.png"]).status, 0)
    let export = try vault.run(["export", "--vault", "v", "1", "--to", "o"])
    XCTAssertEqual(export.status, 0, export.stderr)
    XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/o/gray.png"))
  }

  func testArgumentsAreCheckedBeforeThePasswordIsAskedFor() throws {
    // No password source at all: each error must be about the argument, not the password.
    let missingPath = try vault.run(
      ["add", folder + "/nope.jpg", fixturesPath + "/photo.jpg"], password: nil)
    XCTAssertEqual(missingPath.status, 1)
    XCTAssertTrue(
      missingPath.stderr.hasPrefix("error: '\(folder)/nope.jpg': No such file or directory\n"),
      missingPath.stderr)
    for (arguments, message) in [
      (["select", "7-5"], "error: '7-5': the range runs backwards; write 5-7"),
      (["select", "-1"], "error: '-1': photos are numbered from 1; a range is written 2-5"),
      (["delete", "2,x", "--yes"], "error: 'x': not a photo number"),
      (["export", "0"], "error: '0': photos are numbered from 1"),
    ] {
      let run = try vault.run(arguments, password: nil)
      XCTAssertEqual(run.status, 64, "\(arguments)")
      XCTAssertTrue(run.stderr.hasPrefix(message), "\(arguments): \(run.stderr)")
    }
    try "x".write(toFile: folder + "/file", atomically: true, encoding: .utf8)
    let target = try vault.run(["export", "--all", "--to", folder + "/file/out"], password: nil)
    XCTAssertEqual(target.status, 1)
    XCTAssertTrue(target.stderr.hasPrefix("error: '\(folder)/file"), target.stderr)
    XCTAssertFalse(target.stderr.contains("password"), target.stderr)
  }

  // MARK: 17. Choosing photos, and small things

  func testChoicesByListOpenRangeAndId() throws {
    try addFixtures(["photo.jpg", "gray.png", "gray.jpg", "palette.png", "rgba.png"])
    XCTAssertEqual(try vault.run(["select", "2-3,5"]).stdout, "3 of 5 photos selected\n")
    XCTAssertEqual(try vault.run(["select", "--none"]).status, 0)
    XCTAssertEqual(try vault.run(["select", "4-"]).stdout, "2 of 5 photos selected\n")
    let ids = try vault.listJSON().compactMap { $0["id"] as? String }
    // Ids do not shift when a photo before them is deleted.
    XCTAssertEqual(try vault.run(["delete", "1", "--yes"]).status, 0)
    let export = try vault.run(["export", String(ids[2].prefix(8)), ids[4], "--to", "out", "--quiet"])
    XCTAssertEqual(export.status, 0, export.stderr)
    XCTAssertEqual(export.stdout, "exported 2 photos to out\n", "--quiet prints only the summary")
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: folder + "/out").sorted(), ["gray.jpg", "rgba.png"])
    let unknown = try vault.run(["export", "ffffff", "--to", "out"])
    XCTAssertEqual(unknown.status, 1)
    XCTAssertEqual(unknown.stderr, "error: no photo has an id starting with 'ffffff'\n")
  }

  func testVersionEmptyJSONAndErrorPrefixes() throws {
    let version = try vault.run(["--version"], password: nil)
    XCTAssertEqual(version.status, 0)
    XCTAssertFalse(version.stdout.isEmpty)
    XCTAssertEqual(try vault.run(["list", "--json"]).stdout, "[]\n")
    for arguments in [["add"], ["list", "--nope"], ["frobnicate"], ["list", "--per-row", "x"]] {
      let run = try vault.run(arguments)
      XCTAssertEqual(run.status, 64, "\(arguments)")
      XCTAssertTrue(run.stderr.hasPrefix("error: "), "\(arguments): \(run.stderr)")
      XCTAssertFalse(run.stderr.contains("Error:"), "\(arguments): \(run.stderr)")
    }
  }

  // MARK: 18. The table fits its content

  func testTheTableDoesNotStretchToAWideTerminal() throws {
    try addFixtures(["photo.jpg", "gray.png"])
    let narrow = try vault.run(["list"], environment: ["COLUMNS": "80"])
    let wide = try vault.run(["list"], environment: ["COLUMNS": "160"])
    XCTAssertEqual(narrow.stdout, wide.stdout)
    XCTAssertTrue(wide.stdout.split(separator: "\n").allSatisfy { $0.count < 60 }, wide.stdout)
  }

  // MARK: 19. The format page says what the code writes

  func testFormatPageGivesTheKeyFileLength() throws {
    let format = try String(contentsOfFile: projectPath + "/docs/FORMAT.md", encoding: .utf8)
    let space = try FileManager.default.contentsOfDirectory(atPath: vault.vault).first { $0 != "vault.json" }!
    let length = try fileBytes(vault.vault + "/" + space + "/key").count
    XCTAssertTrue(
      format.contains("\(length) bytes: `\"VLTK\"`"), "FORMAT.md does not give the key's \(length) bytes")
    // `vault passwd` writes key-next beside key: the page names it and says how.
    XCTAssertTrue(format.contains("### Changing the password"), "FORMAT.md does not describe vault passwd")
    XCTAssertTrue(format.contains("`key-next`"), "FORMAT.md does not name the key-next file")
  }
}

/// The test's own copy of what may not reach a terminal (the binary's is in VaultCore,
/// which this test target does not import).
enum TerminalSafeTextProbe {
  static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
    default: return false
    }
  }
}
