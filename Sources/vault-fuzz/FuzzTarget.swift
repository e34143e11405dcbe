// A libFuzzer target over every parser of untrusted bytes. Build and run with `make fuzz`
// (swift build -sanitize=fuzzer); FUZZ_TARGET picks the parser: blob, seekable, index,
// header, exif, details, journal, snapshot, space, jpeg, png, heic, gif, webp, avif or video (libheif, giflib, libwebp, libavif and
// dav1d themselves are not instrumented: the fuzzer learns little of their paths, but a crash
// or a leak in them is still caught; vault's own walk of a GIF's blocks is). `gif`, `webp` and
// `avif` read the header, check the limits and decode the first frame into a thumbnail, as
// an import does. `exif` reads an APP1
// segment and a bare TIFF structure with the one EXIF reader, and Apple's maker note (a Live
// Photo's content identifier) in both and bare; `details` finds the EXIF
// block in a whole JPEG, PNG, HEIC, GIF, WebP or AVIF file (the first byte picks which) and reads it;
// `journal` decodes journal entries (details entries among them), whole and in slices;
// `snapshot` applies snapshots as a space opens them and checks the result against plain
// decoding (see SnapshotDifference.swift);
// `seekable` opens a version-3 (seekable) original, reads ranges of it and reads it whole
// (see SeekableFuzzing.swift); `video` probes an MP4 or QuickTime movie with FFmpeg and
// makes its thumbnail (FFmpeg itself is not instrumented either);
// `space` opens a whole space made of fuzzed files (see SpaceFiles.swift) and works out its
// summary, listing and albums, as `vault info` and `vault list` do; `decoder-protocol` and
// `decoder-reply` drive the decoder helper's protocol from the helper's side and the
// parent's (see DecoderProtocolFuzzing.swift).
import Foundation
import VaultCore
import VaultDecoder

private enum Target: String {
  case blob, seekable, index, header, exif, details, journal, snapshot, space
  case jpeg, png, heic, gif, webp, avif, video
  case decoderProtocol = "decoder-protocol"
  case decoderReply = "decoder-reply"
}

private let target: Target = {
  let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "blob"
  guard let target = Target(rawValue: name) else { fatalError("unknown FUZZ_TARGET \(name)") }
  return target
}()

/// One fixed key, so that the fuzzer can learn (from the seed corpus) what authenticates.
let master = MasterKey(
  key: [UInt8](repeating: 7, count: 32).withUnsafeBytes { SecureBytes(copying: $0) })
let scratch = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/vault-fuzz-\(getpid())"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  switch target {
  case .blob, .index:
    readFuzzedBlob(bytes, asIndex: target == .index)
  case .seekable:
    readFuzzedSeekableBlob(bytes)
  case .header:
    _ = try? VaultHeader.decode(bytes, path: "vault.json")
  case .exif:
    bytes.withUnsafeBytes { buffer in
      _ = ExifReader(app1: buffer)
      _ = ExifReader(tiff: buffer)
      _ = AppleContentIdentifier.inAPP1(buffer)
      _ = AppleContentIdentifier.inTIFF(buffer)
      _ = AppleContentIdentifier.inMakerNote(buffer)
    }
  case .details:
    guard let first = bytes.first else { return 0 }
    let formats: [ImageFormat] = [.jpeg, .png, .heic, .gif, .webp, .avif]
    _ = PhotoDetailsReader.read(
      PinnedBytes(Array(bytes.dropFirst())), format: formats[Int(first) % formats.count])
  case .journal:
    bytes.withUnsafeBytes { buffer in
      _ = try? JournalEntry.decodeAll(buffer) { _ in }
      _ = try? JournalEntry.decodeAllInParallel(buffer, slices: 3) { _ in }
    }
  case .snapshot:
    checkSnapshotDifference(bytes)
  case .space:
    openFuzzedSpace(bytes)
  case .video:
    thumbnailFuzzedVideo(bytes)
  case .decoderProtocol:
    answerFuzzedFrames(bytes)
  case .decoderReply:
    parseFuzzedReply(bytes)
  case .jpeg, .png, .heic, .gif, .webp, .avif:
    var thumbnailer = Thumbnailer()
    thumbnailer.pixelLimit = 4_000_000  // keep each run small; the limit itself is tested elsewhere
    thumbnailer.animationPixelLimit = 16_000_000
    // As small: what is let through must decode well within -rss_limit_mb, ASan's own
    // overhead included, so that an input whose estimate is wrong stands out as an OOM.
    thumbnailer.memoryLimit = 64 << 20
    let format = ImageFormat(rawValue: target.rawValue)!
    _ = try? thumbnailer.makeThumbnail(bytes: bytes, name: "fuzz", format: format)
  }
  return 0
}

/// An original's blob (or format 1's index) in a file the attacker wrote, read with our key.
private func readFuzzedBlob(_ bytes: [UInt8], asIndex index: Bool) {
  // The file is the attacker's; the key is ours.
  _ = FileManager.default.createFile(atPath: scratch, contents: Data(bytes))
  let kind: BlobKind = index ? .index : .original
  let id = index ? BlobID.index : BlobID(hex: "000102030405060708090a0b0c0d0e0f")!
  if let reader = try? BlobReader(
    path: scratch, kind: kind, key: master.blobKey(kind: kind, id: id), what: "fuzz"),
    let plaintext = try? reader.readToEnd(limit: 1 << 24), index
  {
    _ = try? JSONDecoder().decode(SpaceIndex.self, from: Data(plaintext))
  }
  if !index,
    let reader = try? OriginalBlobReader(path: scratch, id: id, master: master, what: "fuzz")
  {
    try? reader.readContent { _ in }
  }
}

/// A movie made into a thumbnail and its details read, as an import does, in a small budget.
private func thumbnailFuzzedVideo(_ bytes: [UInt8]) {
  var thumbnailer = Thumbnailer()
  thumbnailer.pixelLimit = 4_000_000
  thumbnailer.memoryLimit = 64 << 20
  // A stall is what the time budget is for: it must end each run well within libFuzzer's
  // own timeout, which then stands out as a hang the budget did not stop.
  thumbnailer.videoTimeLimit = 2
  let format: ImageFormat = bytes.count > 8 && bytes[8...].starts(with: Array("qt  ".utf8)) ? .mov : .mp4
  _ = try? thumbnailer.makeThumbnail(bytes: bytes, name: "fuzz", format: format)
  _ = PhotoDetailsReader.read(PinnedBytes(bytes), format: format)
}

// SwiftPM names an executable's entry point `vault_fuzz_main`; it hands control to
// libFuzzer's driver with the function above.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// libFuzzer's own `main` (in a build with `--sanitize=fuzzer`) calls this first: with
/// FUZZ_WRITE_SEEDS set, the seeds are written there and the program ends.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
  if let folder = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] {
    writeAllSeeds(into: folder)
    exit(0)
  }
  return 0
}

@_cdecl("vault_fuzz_main")
public func fuzzMain(
  _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
  if let folder = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] {
    writeAllSeeds(into: folder)
    return 0
  }
  var count = argc
  var arguments = argv
  return withUnsafeMutablePointer(to: &count) { countPointer in
    withUnsafeMutablePointer(to: &arguments) { argumentsPointer in
      runFuzzerDriver(countPointer, argumentsPointer) { data, size in fuzz(data, size) }
    }
  }
}

/// Every target's seeds that the fuzzer cannot find by itself.
private func writeAllSeeds(into folder: String) {
  writeSeeds(into: folder)
  writeSeekableSeeds(into: folder)
  writeSpaceSeed(into: folder)
  writeSnapshotSeeds(into: folder)
  writeDecoderSeeds(into: folder)
}

/// Writes valid blobs under the fuzzing key, the seeds the fuzzer cannot find by itself.
private func writeSeeds(into folder: String) {
  func blob(_ kind: BlobKind, _ id: BlobID, _ plaintext: [UInt8], _ name: String) {
    guard let file = try? TemporaryFile(in: folder),
      let writer = try? BlobWriter(kind: kind, key: master.blobKey(kind: kind, id: id), output: file)
    else { fatalError("cannot write seeds into \(folder)") }
    try? writer.write(plaintext)
    try? writer.finish()
    try? file.replace(folder + "/" + name)
  }
  let id = BlobID(hex: "000102030405060708090a0b0c0d0e0f")!
  let record = PhotoRecord(
    id: id, name: "seed.jpg", bytes: 3, format: .jpeg, width: 1, height: 1, orientation: 1,
    modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0),
    contentHash: String(repeating: "0", count: 64))
  blob(.original, id, (try! OriginalBlob.header(for: record)) + [1, 2, 3], "blob-small")
  blob(
    .original, id, (try! OriginalBlob.header(for: record)) + [UInt8](repeating: 9, count: 70_000),
    "blob-two-chunks")
  let index = SpaceIndex(photos: [IndexEntry(record: record, selected: true)])
  blob(.index, .index, Array(try! JSONEncoder().encode(index)), "index-one")
  blob(.index, .index, Array(try! JSONEncoder().encode(SpaceIndex())), "index-empty")
}
