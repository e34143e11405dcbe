import Foundation
import VaultCore
import VaultTestSupport
import XCTest

@testable import VaultServe

final class QRCodeTests: XCTestCase {
  /// The longest address `vault serve` prints for IPv4.
  let longestAddress = "https://192.168.100.200:65535/" + String(repeating: "A", count: 43) + "/"

  func testTheLongestIPv4AddressFitsEightyColumnsAndHalfAsManyLines() throws {
    let code = try XCTUnwrap(QRCode(longestAddress))
    XCTAssertLessThanOrEqual(code.drawnWidth, 80)
    let lines = code.terminalLines()
    XCTAssertEqual(lines.count, (code.drawnWidth + 1) / 2)
    for line in lines {
      let visible = line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
      XCTAssertEqual(visible.count, code.drawnWidth)
      XCTAssertTrue(visible.allSatisfy { " ▀▄█".contains($0) }, visible)
      XCTAssertTrue(
        line.hasPrefix("\u{1B}[38;5;16;48;5;231m"), "black on white, whatever the terminal's colours")
      XCTAssertTrue(line.hasSuffix("\u{1B}[0m"))
    }
  }

  func testTheDrawingHoldsEveryModuleWithAQuietZone() throws {
    let code = try XCTUnwrap(QRCode("https://127.0.0.1:1/x/"))
    let side = code.drawnWidth
    var drawn = [[Bool]](repeating: [Bool](repeating: false, count: side), count: side + 1)
    for (lineNumber, line) in code.terminalLines().enumerated() {
      let visible = line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
      for (column, character) in visible.enumerated() {
        drawn[2 * lineNumber][column] = character == "▀" || character == "█"
        drawn[2 * lineNumber + 1][column] = character == "▄" || character == "█"
      }
    }
    for row in 0..<side {
      for column in 0..<side {
        XCTAssertEqual(drawn[row][column], code.isDark(row: row, column: column), "\(row), \(column)")
      }
    }
    for index in 0..<side {
      XCTAssertFalse(drawn[0][index] || drawn[1][index] || drawn[index][0] || drawn[index][1])
    }
    // The finder pattern's corner: the first dark module is just inside the quiet zone.
    XCTAssertTrue(code.isDark(row: QRCode.quietZone, column: QRCode.quietZone))
  }
}

final class ServedPageTests: XCTestCase {
  func testStyleAndScriptGoInlineAndThePolicyAllowsExactlyThem() {
    let page = ServedPage(
      html: "<style>{{STYLE}}</style><script>{{SCRIPT}}</script>", style: "b{}", script: "1")
    XCTAssertEqual(String(decoding: page.body, as: UTF8.self), "<style>b{}</style><script>1</script>")
    // echo -n 1 | openssl dgst -sha256 -binary | base64
    XCTAssertTrue(
      page.contentSecurityPolicy.contains("script-src 'sha256-a4ayc/80/OGda4BO/1o/V0etpOqiLx1JwB5S3beHW0s='"),
      page.contentSecurityPolicy)
    XCTAssertTrue(page.contentSecurityPolicy.hasPrefix("default-src 'none'; "))
    for directive in [
      "img-src 'self' data:", "connect-src 'self'", "base-uri 'none'", "form-action 'none'",
      "frame-ancestors 'none'",
    ] {
      XCTAssertTrue(page.contentSecurityPolicy.contains(directive), directive)
    }
  }

  func testTheRealPageHasItsPlaceholdersAndNoExternalResources() {
    XCTAssertTrue(UploadPage.html.contains("{{STYLE}}"))
    XCTAssertTrue(UploadPage.html.contains("{{SCRIPT}}"))
    let page = String(decoding: ServedPage().body, as: UTF8.self)
    XCTAssertFalse(page.contains("http://") || page.contains("https://") || page.contains("//cdn"))
  }
}

final class ServerCertificateTests: XCTestCase {
  /// Read by the openssl command, a parser other than the BoringSSL that made it.
  func testCertificateNamesTheAddressAndIsShortLived() throws {
    let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    let identity = try ServerCertificate(address: "192.168.1.20", now: now)
    let fields = try openssl(
      [
        "-subject", "-issuer", "-startdate", "-enddate", "-ext",
        "basicConstraints,keyUsage,extendedKeyUsage,subjectAltName",
      ], identity.der)
    XCTAssertTrue(fields.contains("subject=CN = 192.168.1.20\nissuer=CN = 192.168.1.20\n"), fields)
    XCTAssertTrue(fields.contains("X509v3 Subject Alternative Name: \n    IP Address:192.168.1.20\n"), fields)
    XCTAssertTrue(fields.contains("X509v3 Basic Constraints: critical\n    CA:FALSE\n"), fields)
    XCTAssertTrue(fields.contains("X509v3 Key Usage: critical\n    Digital Signature\n"), fields)
    XCTAssertTrue(fields.contains("X509v3 Extended Key Usage: \n    TLS Web Server Authentication\n"), fields)
    XCTAssertEqual(try date(after: "notBefore=", in: fields), now.addingTimeInterval(-86400))
    XCTAssertEqual(try date(after: "notAfter=", in: fields), now.addingTimeInterval(7 * 86400))
    let text = try openssl(["-text"], identity.der)
    XCTAssertTrue(text.contains("ASN1 OID: prime256v1"), text)
    XCTAssertTrue(text.contains("Signature Algorithm: ecdsa-with-SHA256"), text)
  }

  /// What `openssl x509 -noout <arguments>` prints of the DER certificate `der`.
  private func openssl(_ arguments: [String], _ der: [UInt8]) throws -> String {
    try requireTool("/usr/bin/openssl")
    let path = try makeTemporaryFolder(self) + "/certificate.der"
    try writeBytes(der, to: path)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = ["x509", "-inform", "DER", "-in", path, "-noout"] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    return String(decoding: printed, as: UTF8.self)
  }

  /// The date of a `notBefore=Nov  8 10:30:00 2026 GMT` line.
  private func date(after label: String, in fields: String) throws -> Date? {
    let line = try XCTUnwrap(fields.split(separator: "\n").first { $0.hasPrefix(label) }, fields)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "MMM d HH:mm:ss yyyy 'GMT'"
    return formatter.date(from: line.dropFirst(label.count).split(separator: " ").joined(separator: " "))
  }

  func testFingerprintIsTheSHA256OfTheDERInBrowserNotation() throws {
    let identity = try ServerCertificate(address: "::1")
    let parts = identity.fingerprint.split(separator: ":")
    XCTAssertEqual(parts.count, 32)
    XCTAssertTrue(parts.allSatisfy { $0.count == 2 && $0.allSatisfy { "0123456789ABCDEF".contains($0) } })
    XCTAssertNotEqual(
      try ServerCertificate(address: "::1").fingerprint, identity.fingerprint, "a new key each run")
  }

  func testAddressesMustBeIPLiterals() {
    XCTAssertTrue(ServeAddress.isIPAddress("10.0.0.1"))
    XCTAssertTrue(ServeAddress.isIPAddress("fe80::1"))
    for text in ["", "localhost", "10.0.0", "10.0.0.256", "1.2.3.4 ", "[::1]"] {
      XCTAssertFalse(ServeAddress.isIPAddress(text), text)
      XCTAssertThrowsError(try ServerCertificate(address: text))
    }
    XCTAssertEqual(ServeAddress.hostPort("fe80::1", 8443), "[fe80::1]:8443")
    XCTAssertEqual(ServeAddress.hostPort("10.0.0.1", 80), "10.0.0.1:80")
  }
}

final class ServeTerminalTextTests: XCTestCase {
  func testUploadLines() {
    XCTAssertEqual(
      UploadEvent.added(name: "IMG_4012.HEIC", bytes: 3_100_000).line, "added IMG_4012.HEIC (3.1 MB)")
    XCTAssertEqual(UploadEvent.duplicate(name: "IMG_4010.JPG").line, "already in the vault: IMG_4010.JPG")
    XCTAssertEqual(
      UploadEvent.duplicate(name: "b.jpg", of: "12 'jolla.jpg' (id 0123abcd)").line,
      "already in the vault: b.jpg as 12 'jolla.jpg' (id 0123abcd)")
    XCTAssertEqual(
      UploadEvent.refused(name: "notes.txt", reason: "not a photo").line, "refused notes.txt: not a photo")
    XCTAssertEqual(
      UploadEvent.incomplete(name: "IMG_1.JPG", received: 1_200_000, length: 5_000_000).line,
      "incomplete: IMG_1.JPG (connection closed after 1.2 of 5.0 MB)")
    XCTAssertEqual(UploadEvent.megabytes(49_999), "0.0")
    XCTAssertEqual(UploadEvent.megabytes(50_000), "0.1")
  }

  func testSummaryAndWhenToStop() {
    final class FakeClock: @unchecked Sendable { var now = 0.0 }
    let clock = FakeClock()
    let tally = UploadTally { clock.now }
    XCTAssertEqual(tally.summary(stored: (ItemCount(), 0)), "received 0 items, 0 duplicates, 0 refused")
    XCTAssertNil(tally.stopReason(idle: 600, once: true, batchGap: 5))
    tally.uploadStarted()
    clock.now = 1000
    XCTAssertNil(tally.stopReason(idle: 600, once: true, batchGap: 5), "an upload in flight keeps it serving")
    tally.uploadEnded(.added(name: "a", bytes: 1))
    XCTAssertNil(tally.stopReason(idle: 600, once: true, batchGap: 5))
    clock.now = 1005
    XCTAssertEqual(tally.stopReason(idle: 600, once: true, batchGap: 5), .batchDone)
    XCTAssertNil(tally.stopReason(idle: 600, once: false, batchGap: 5))
    XCTAssertNil(tally.stopReason(idle: nil, once: false, batchGap: 5))
    clock.now = 1600
    XCTAssertEqual(tally.stopReason(idle: 600, once: false, batchGap: 5), .idle)
    for event in [
      UploadEvent.duplicate(name: "b"), .refused(name: "c", reason: "x"),
      .incomplete(name: "d", received: 1, length: 2),
    ] {
      tally.uploadStarted()
      tally.uploadEnded(event)
    }
    var live = ItemCount()
    live.livePhotos = 1
    XCTAssertEqual(
      tally.summary(stored: (live, 2)), "received 1 Live Photo from 2 files, 1 duplicate, 2 refused")
  }
}
