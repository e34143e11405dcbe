import Foundation
import VaultTestSupport
import XCTest

/// An offloaded video read through a real FUSE mount of `vault mount`: a seek into its
/// middle fetches a bounded amount from the remote (rclone's reads counted through
/// `VAULT_REMOTE_READ_LOG`), and the whole file reads back bit for bit.
final class OffloadMountTests: XCTestCase {
  func testASeekFetchesABoundedAmountAndTheWholeVideoReadsBack() throws {
    try requireRclone()
    let (vault, mountPoint) = try MountTests.vaultAndMountPoint(for: self)
    let folder = vault.workingDirectory
    let video = folder + "/noise.mp4"
    // Lossless noise: some 24 MB, many read-aheads long.
    try TestVideos.run([
      "-f", "lavfi", "-i", "nullsrc=s=640x480:rate=25:d=2,geq=random(1)*255:128:128", "-c:v", "libx264",
      "-pix_fmt", "yuv420p", "-qp", "0", "-preset", "ultrafast", video,
    ])
    let bytes = try fileBytes(video)
    XCTAssertGreaterThan(bytes.count, 16 << 20)
    let environment = ["RCLONE_CONFIG": "/nonexistent", "VAULT_REMOTE_READ_LOG": folder + "/reads"]
    XCTAssertEqual(try vault.run(["add", video]).status, 0)
    let offloaded = try vault.run(["offload", "--all", "--to", folder + "/remote"], environment: environment)
    XCTAssertEqual(offloaded.status, 0, offloaded.stderr)
    try? FileManager.default.removeItem(atPath: folder + "/reads")

    let running = try vault.start(["mount", mountPoint], environment: environment)
    XCTAssertNotNil(running.waitForLine { $0.contains("mounted") })
    let path = mountPoint + "/Photos/noise.mp4"
    let handle = try XCTUnwrap(FileHandle(forReadingAtPath: path))
    let middle = bytes.count / 2
    try handle.seek(toOffset: UInt64(middle))
    let read = try XCTUnwrap(try handle.read(upToCount: 100_000))
    XCTAssertEqual([UInt8](read), Array(bytes[middle..<middle + 100_000]))
    try handle.close()
    let fetched = try remoteReads(folder + "/reads")
    // The blob's first block (its header and first chunk), its last (the record there),
    // and what the seek needs: each read at most the 4 MiB read-ahead.
    XCTAssertTrue(fetched.allSatisfy { $0 <= 4 << 20 }, "\(fetched)")
    XCTAssertLessThanOrEqual(fetched.reduce(0, +), 12 << 20, "\(fetched)")
    XCTAssertLessThan(fetched.reduce(0, +), bytes.count / 2, "a seek fetched most of the video: \(fetched)")
    print("OffloadMountTests: a seek to the middle of \(bytes.count) bytes fetched \(fetched) bytes")

    XCTAssertEqual(try fileBytes(path), bytes, "the whole video, read through the mount")
    running.send(SIGINT)
    XCTAssertEqual(try running.finish().status, 0)
  }

  /// The bytes each remote read returned, from the read log's lines
  /// (`<offset> <count> <bytes read> <path>`).
  private func remoteReads(_ log: String) throws -> [Int] {
    try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map {
      Int($0.split(separator: " ")[2])!
    }
  }
}
