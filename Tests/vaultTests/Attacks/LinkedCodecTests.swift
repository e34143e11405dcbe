import Foundation
import XCTest

/// The process that holds keys cannot call a codec: `vault` does not link one, only the
/// decoder helper does (docs/DECODER.md, "Which process links which library"). Read from
/// the ELF's dynamic section, so a dependency added by any path (a target, a product) fails.
final class LinkedCodecTests: XCTestCase {
  static let codecLibraries = [
    "libavcodec", "libavformat", "libavutil", "libswscale", "libswresample", "libheif", "libgif",
    "libwebp", "libavif", "libdav1d",
  ]

  /// The libraries `binary` names as NEEDED.
  func neededLibraries(of binary: String) throws -> [String] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
    process.arguments = ["--dynamic", "--wide", binary]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0, "readelf \(binary)")
    return text.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
      guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
      return String(line[line.index(after: open)..<close])
    }
  }

  func codecs(in libraries: [String]) -> [String] {
    libraries.filter { library in Self.codecLibraries.contains { library.hasPrefix($0 + ".") } }
  }

  func testVaultLinksNoCodecAndTheHelperDoes() throws {
    let vault = try neededLibraries(of: VaultRunner.binary)
    XCTAssertFalse(vault.isEmpty, "readelf found no NEEDED entry in \(VaultRunner.binary)")
    XCTAssertEqual(codecs(in: vault), [], "vault links a codec")
    let helper = URL(fileURLWithPath: VaultRunner.binary).deletingLastPathComponent()
      .appendingPathComponent("vault-decoder").path
    // The same reading finds them where they are, so an empty list above means something.
    let helperCodecs = codecs(in: try neededLibraries(of: helper))
    for library in ["libavformat", "libavcodec", "libheif", "libgif", "libwebp", "libavif"] {
      XCTAssertTrue(
        helperCodecs.contains { $0.hasPrefix(library + ".") }, "vault-decoder links no \(library)")
    }
  }
}
