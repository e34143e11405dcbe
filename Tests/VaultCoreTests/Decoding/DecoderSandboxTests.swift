import Foundation
import VaultTestSupport
import XCTest

@testable import VaultCore
@testable import VaultDecoder

/// The decoder helper runs confined, and a helper that breaks a limit is killed, named in
/// the file's refusal and replaced, while the next file decodes.
final class DecoderSandboxTests: XCTestCase {
  private let jpegPath = fixturesPath + "/orientation-6.jpg"

  private func analyseJPEG(_ pool: DecoderPool, name: String = "next.jpg") throws -> DecoderAnalysis {
    let bytes = PinnedBytes(Array(try Data(contentsOf: URL(fileURLWithPath: jpegPath))))
    return try pool.analyse(
      DecoderRequest(
        wants: [.thumbnail, .details], thumbnailer: Thumbnailer(), format: .jpeg, name: name, size: 0,
        delivery: .bytes),
      input: .bytes(bytes), name: name)
  }

  private func refusal(_ body: () throws -> Void) -> VaultError? {
    do {
      try body()
      return nil
    } catch {
      return error as? VaultError
    }
  }

  func testHelperRunsUnderSeccompNoNewPrivsAndLimits() throws {
    let pool = DecoderPool(size: 1, limits: DecoderLimits(memoryMiB: 300))
    try pool.withWorker { try $0.probe() }
    let pid = try XCTUnwrap(pool.idlePIDs.first)
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    XCTAssert(status.contains("Seccomp:\t2\n"), status)
    XCTAssert(status.contains("NoNewPrivs:\t1\n"), status)
    // No capability, even when the tests run as root.
    for set in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
      XCTAssert(status.contains("\(set):\t0000000000000000\n"), status)
    }
    // Nothing it writes reaches vault's stderr (a terminal, perhaps).
    XCTAssertEqual(
      try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/2"), "/dev/null")
    let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
    func limit(_ name: String) -> [Substring] {
      let line = limits.split(separator: "\n").first { $0.hasPrefix(name) } ?? ""
      return line.dropFirst(name.count).split(separator: " ")
    }
    XCTAssertEqual(limit("Max file size").prefix(2), ["0", "0"])
    XCTAssertEqual(limit("Max core file size").prefix(2), ["0", "0"])
    XCTAssertEqual(limit("Max open files").prefix(2), ["5", "5"])
    XCTAssertEqual(limit("Max cpu time").prefix(2), ["3600", "3600"])
    // The address space: what the helper had mapped when it set the limit, plus 300 MiB.
    let addressSpace = try XCTUnwrap(Int(limit("Max address space").first ?? ""))
    let mapped = try XCTUnwrap(Self.vmSize(pid: pid))
    XCTAssertGreaterThan(addressSpace, 300 << 20)
    XCTAssertLessThanOrEqual(addressSpace - mapped, 300 << 20)
  }

  /// The helper's mappings now (VmSize, in bytes).
  private static func vmSize(pid: pid_t) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmSize:") }),
      let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
    else { return nil }
    return kilobytes << 10
  }

  func testForbiddenCallsKillTheHelperBySIGSYSAndTheNextFileDecodes() throws {
    let pool = DecoderPool(size: 1)
    for fault in [DecoderFault.open, .socket, .execve, .signalOtherProcess, .executableMemory] {
      try pool.withWorker { try $0.probe() }
      let before = pool.idlePIDs
      let error = refusal { try pool.withWorker { try $0.fault(fault, name: "crafted.mp4") } }
      XCTAssertEqual(
        error,
        .decoderRefused(
          path: "crafted.mp4", reason: "the decoder made a forbidden system call and was killed (SIGSYS)"),
        "\(fault)")
      XCTAssertEqual(pool.idlePIDs, [], "the dead helper is not kept")
      let analysis = try analyseJPEG(pool)
      XCTAssertEqual(analysis.thumbnail?.orientation, 6)
      XCTAssertNotEqual(pool.idlePIDs, before, "a fresh helper decoded the next file")
    }
  }

  func testHelperKilledMidRequestIsReportedAndReplaced() throws {
    let pool = DecoderPool(size: 1)
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: jpegPath)))
    let request = DecoderRequest(
      wants: [.thumbnail], thumbnailer: Thumbnailer(), format: .jpeg, name: "killed.jpg", size: 0,
      delivery: .ranges)
    let error = refusal {
      try pool.withWorker { worker in
        // The helper asks for the file's bytes: it is in the middle of the request.
        _ = try worker.analyse(
          request,
          input: .ranges(size: Int64(bytes.count)) { _, _ in
            kill(worker.pid, SIGKILL)
            return 0
          }, name: "killed.jpg")
      }
    }
    XCTAssertEqual(error, .decoderRefused(path: "killed.jpg", reason: "the decoder died of SIGKILL"))
    XCTAssertEqual(try analyseJPEG(pool).thumbnail?.width, 48)
  }

  func testDeadlineOverrunKillsTheHelperAndTheNextFileDecodes() throws {
    let pool = DecoderPool(size: 1, limits: DecoderLimits(deadline: 1))
    let error = refusal { try pool.withWorker { try $0.fault(.spin, name: "spinning.gif") } }
    XCTAssertEqual(error, .decoderRefused(path: "spinning.gif", reason: "decoding took more than 1 s"))
    XCTAssertEqual(error?.description, "'spinning.gif': refused: decoding took more than 1 s")
    XCTAssertNotNil(try analyseJPEG(pool).thumbnail)
  }

  func testFilledAddressSpaceIsReportedAsTheMemoryLimit() throws {
    let pool = DecoderPool(size: 1, limits: DecoderLimits(memoryMiB: 96))
    let error = refusal { try pool.withWorker { try $0.fault(.exhaustMemory, name: "bomb.heic") } }
    XCTAssertEqual(error?.description, "'bomb.heic': refused: decoding needs more than 96 MiB")
    XCTAssertNotNil(try analyseJPEG(pool).thumbnail)
  }
}

/// A picture decoded in a helper for showing comes back, through shared memory, exactly as
/// decoding it here gives it.
final class DecoderPictureTests: XCTestCase {
  func testPicturesThroughSharedMemoryMatchDecodingInProcess() throws {
    let pool = DecoderPool(size: 1)
    let cases: [(String, ImageFormat, PixelSize?)] = [
      ("orientation-6.jpg", .jpeg, nil), ("orientation-6.jpg", .jpeg, PixelSize(width: 12, height: 8)),
      ("gray.png", .png, nil), ("alpha.heic", .heic, nil), ("orientation-3.heic", .heic, nil),
    ]
    for (name, format, minimumSize) in cases {
      let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: fixturesPath + "/" + name)))
      let here = try PhotoDecoder.decode(
        PlaintextBytes(bytes), format: format, name: name, minimumSize: minimumSize, limits: Thumbnailer())
      let request = DecoderRequest(
        wants: [.picture], thumbnailer: Thumbnailer(), format: format, name: name, size: 0, delivery: .bytes,
        minimumSize: minimumSize)
      let there = try pool.picture(request, input: .bytes(PinnedBytes(bytes)), name: name)
      XCTAssertEqual(there.image, here.image, name)
      XCTAssertEqual(there.fullSize, here.fullSize, name)
      XCTAssertEqual(there.scaleDenominator, here.scaleDenominator, name)
      XCTAssertEqual(there.details, here.details, name)
    }
  }

  /// An original over what a request carries whole (a JPEG with 70 MB after its end, as
  /// the review's big files) is read by range instead, and shown.
  func testAnOriginalOverTheWholeLimitIsReadByRange() throws {
    let jpeg = Array(try Data(contentsOf: URL(fileURLWithPath: fixturesPath + "/orientation-6.jpg")))
    let padded = jpeg + [UInt8](repeating: 0, count: DecoderFrame.fileLimit + 1000)
    let request = DecoderRequest(
      wants: [.picture], thumbnailer: Thumbnailer(), format: .jpeg, name: "big.jpg", size: 0, delivery: .bytes
    )
    let picture = try DecoderPool(size: 1).picture(
      request, input: .bytes(PinnedBytes(padded)), name: "big.jpg")
    XCTAssertEqual(picture.fullSize, PixelSize(width: 48, height: 32))
  }
}
