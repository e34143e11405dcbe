// Builds a big space fast for `make bench-scale`: photos are written straight through the
// library (tiny unique JPEGs, no thumbnailing, no flush per file), then listed in the
// journal in batches, as imports list them. Only for benchmarks: nothing here is durable.
// Usage: vault-scale VAULT_DIR COUNT  (password from VAULT_PASSWORD; the vault must not exist)
//        vault-scale measure BIG EMPTY RUNS  (see Measure)
import Foundation
import VaultCore
import VaultDecoder

let arguments = CommandLine.arguments
if arguments.count == 5, arguments[1] == "measure", let runs = Int(arguments[4]), runs > 0,
  let passwordText = ProcessInfo.processInfo.environment["VAULT_PASSWORD"]
{
  try Measure.run(
    big: arguments[2], empty: arguments[3], runs: runs, password: try Password(utf8: Array(passwordText.utf8))
  )
  exit(0)
}
guard arguments.count == 3, let count = Int(arguments[2]), count > 0,
  let passwordText = ProcessInfo.processInfo.environment["VAULT_PASSWORD"]
else {
  FileHandle.standardError.write(Data("usage: VAULT_PASSWORD=… vault-scale VAULT_DIR COUNT\n".utf8))
  exit(64)
}
let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent().appendingPathComponent("Fixtures")
let sample = Array(try Data(contentsOf: fixtures.appendingPathComponent("photo.jpg")))
let password = try Password(utf8: Array(passwordText.utf8))
let vault = try Vault.create(at: arguments[1], kdf: KDFParameters(preset: .interactive))
try vault.createSpace(password: password)
let space = try vault.unlock(password: password, access: .write)
let hashKey = space.master.contentHashKey()
let thumbnail = try Thumbnailer().makeThumbnail(bytes: sample, name: "photo.jpg", format: .jpeg)

/// Writes a blob without flushing it (a benchmark's space needs no durability). On the main
/// actor, as the top-level code whose space it writes into.
@MainActor
func writeBlob(kind: BlobKind, id: BlobID, in folder: String, _ parts: [[UInt8]]) throws {
  let file = try TemporaryFile(in: folder)
  let writer = try BlobWriter(kind: kind, key: space.master.blobKey(kind: kind, id: id), output: file)
  for part in parts { try writer.write(part) }
  try writer.finish()
  guard rename(file.path!, folder + "/" + id.hex) == 0 else { throw VaultError.posix(folder) }
}

let batch = 1000
var written = 0
let started = Date()
while written < count {
  var records: [PhotoRecord] = []
  for number in written..<min(count, written + batch) {
    // Unique bytes after the end marker make each original a different photo.
    var unique = withUnsafeBytes(of: UInt64(number).bigEndian, Array.init)
    let original = sample + unique
    unique.wipe()
    let hasher = ContentHasher(key: hashKey)
    original.withUnsafeBytes { hasher.update($0) }
    let id = BlobID.random()
    let record = PhotoRecord(
      id: id, name: String(format: "IMG_%06d.jpg", number), bytes: Int64(original.count), format: .jpeg,
      width: thumbnail.width, height: thumbnail.height, orientation: 1, modifiedAt: .now(),
      importedAt: .now(),
      contentHash: hasher.finish())
    // A thumbnail blob holds its JPEG after its length, as ThumbnailBlob writes it.
    try writeBlob(
      kind: .thumbnail, id: id, in: space.thumbDirectory,
      [LengthPrefixedPayload.lengthBytes(thumbnail.jpeg.count), thumbnail.jpeg])
    try writeBlob(
      kind: .original, id: id, in: space.photoDirectory, [try OriginalBlob.header(for: record), original])
    records.append(record)
  }
  try space.appendImported(records)
  written += records.count
  if written % 10000 == 0 || written == count {
    FileHandle.standardError.write(
      Data("\r\(written) of \(count) photos (\(Int(Date().timeIntervalSince(started))) s)".utf8))
  }
}
try space.compactJournal()
FileHandle.standardError.write(Data("\n".utf8))
