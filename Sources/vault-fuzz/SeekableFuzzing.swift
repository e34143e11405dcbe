// The `seekable` target: a version-3 original blob from the attacker, read under our key
// as every path reads one (the blob reader alone, a photo's ranges, the whole photo).
import Foundation
import VaultCore

let fuzzedPhotoID = BlobID(hex: "000102030405060708090a0b0c0d0e0f")!

func readFuzzedSeekableBlob(_ bytes: [UInt8]) {
  _ = FileManager.default.createFile(atPath: scratch, contents: Data(bytes))
  let key = master.blobKey(kind: .original, id: fuzzedPhotoID)
  if let reader = try? SeekableBlobReader(
    path: scratch, kind: .original, key: key, what: "fuzz", trailerLimit: OriginalBlob.recordSizeLimit)
  {
    // A payload length the input chooses, in range or not.
    let claimed = Int(bytes.last ?? 0) * 1000 + reader.trailerOffset / 2
    try? reader.checkPadding(payloadLength: claimed)
    try? reader.checkPadding(payloadLength: reader.trailerOffset)
  }
  guard let original = try? OriginalBlobReader(path: scratch, id: fuzzedPhotoID, master: master, what: "fuzz")
  else { return }
  var buffer = [UInt8](repeating: 0, count: 70_000)
  let size = original.record.bytes
  for offset in [0, 65_535, 65_536, size / 2, size - 1, size, size + 1] where offset >= 0 {
    _ = try? buffer.withUnsafeMutableBytes { try original.read(at: offset, into: $0) }
  }
  try? original.readContent { _ in }
}

/// Version-3 originals under the fuzzing key, of one chunk and of three (the seeds of
/// Fuzz/seeds/seekable).
func writeSeekableSeeds(into folder: String) {
  let record = { (bytes: Int) in
    PhotoRecord(
      id: fuzzedPhotoID, name: "seed.mp4", bytes: Int64(bytes), format: .jpeg, width: 1, height: 1,
      orientation: 1, modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0),
      contentHash: String(repeating: "0", count: 64))
  }
  for (name, size) in [("seekable-small", 3), ("seekable-three-chunks", 131_000)] {
    guard let file = try? TemporaryFile(in: folder),
      let writer = try? SeekableBlobWriter(
        kind: .original, key: master.blobKey(kind: .original, id: fuzzedPhotoID), output: file),
      (try? writer.write([UInt8](repeating: 9, count: size))) != nil,
      let json = try? OriginalBlob.recordJSON(record(size)),
      (try? writer.finish(trailer: json)) != nil,
      (try? file.replace(folder + "/" + name)) != nil
    else { fatalError("cannot write seeds into \(folder)") }
  }
}
