// The `space` fuzz target: a whole space folder made of fuzzed files, opened as `vault info`
// and `vault list` open one. Its input is a list of files, each
//
//     kind (1 byte) ‖ id (16 bytes) ‖ length (4 bytes, big-endian) ‖ contents
//
// where kind (modulo 4) makes it `Journal/s-<id>`, `Journal/j-<id>`, `Photo/<id>` or
// `Thumb/<id>`. The key file wraps the fuzzing master key with a fixed wrapping key, so
// that the fuzzer can learn (from the seed) what authenticates.
import Foundation
import VaultCore
import VaultTerminal

/// The fixed wrapping key, made for each use: a global `SecureBytes` would be shared mutable
/// memory.
private func wrappingKey() -> SecureBytes {
  [UInt8](repeating: 9, count: 32).withUnsafeBytes { SecureBytes(copying: $0) }
}
private let folders = ["Journal/s-", "Journal/j-", "Photo/", "Thumb/"]

/// The files an input stands for, as (path inside the space, contents).
private func spaceFiles(_ bytes: [UInt8]) -> [(String, [UInt8])] {
  var files: [(String, [UInt8])] = []
  var offset = 0
  while offset + 21 <= bytes.count, files.count < 16 {
    let kind = Int(bytes[offset]) % folders.count
    let id = bytes[offset + 1..<offset + 17].withUnsafeBytes { BlobID(bytes: $0) }
    let length = bytes[offset + 17..<offset + 21].reduce(0) { $0 << 8 | Int($1) }
    let start = offset + 21
    let end = min(bytes.count, start + length)
    files.append((folders[kind] + id.hex, Array(bytes[start..<end])))
    offset = end
  }
  return files
}

/// Makes a space folder of `bytes` and opens it; nothing it holds may crash, hang or take
/// unbounded memory.
func openFuzzedSpace(_ bytes: [UInt8]) {
  let directory = scratch + "-space"
  removeTree(directory)
  for folder in ["", "/Journal", "/Photo", "/Thumb"] { mkdir(directory + folder, 0o700) }
  defer { removeTree(directory) }
  _ = FileManager.default.createFile(
    atPath: directory + "/" + Space.keyFile, contents: Data(KeyWrap.wrap(master, with: wrappingKey())))
  for (path, contents) in spaceFiles(bytes) {
    _ = FileManager.default.createFile(atPath: directory + "/" + path, contents: Data(contents))
  }
  guard let space = try? Space(directory: directory, wrappingKey: wrappingKey(), access: .read) else {
    return
  }
  // Through the data source, as every command reads a space: sorted by date, the records
  // decoded lazily from the snapshot's bytes.
  let browser = space.makeBrowser()
  var text = "\(browser.summary())"
  let listed = browser.listed(selectedOnly: false, from: nil, count: nil)
  text += PhotoListing.table(listed, names: browser.shownNames, columns: 80).joined()
  text += browser.albums.map(\.name).joined()
  for model in listed.map(\.photo).prefix(4) where model.record.bytes < 1 << 20 {
    _ = try? browser.originalBytes(of: model.record)
    _ = try? browser.dataSource.thumbnail(model.record)
  }
  _ = text.count
}

/// Writes `space-one`: a snapshot with a photo (selected, in an album), a segment that
/// deletes nothing and selects it again, and the photo's blobs, all under the fuzzing keys.
func writeSpaceSeed(into folder: String) {
  let id = BlobID(hex: "000102030405060708090a0b0c0d0e0f")!
  let record = PhotoRecord(
    id: id, name: "seed.jpg", bytes: 3, format: .jpeg, width: 1, height: 1, orientation: 1,
    modifiedAt: Timestamp(seconds: 0), importedAt: Timestamp(seconds: 0),
    contentHash: String(repeating: "0", count: 64))
  let staging = scratch + "-seed"
  removeTree(staging)
  mkdir(staging, 0o700)
  defer { removeTree(staging) }
  var state = SpaceState(listing: [IndexEntry(record: record, selected: true)], selectedAt: 1)
  let album = AlbumID(BlobID(hex: "101112131415161718191a1b1c1d1e1f")!)
  state.apply(.albumNamed(album, name: "seed", stamp: 2))
  state.apply(.albumMembership(album, photo: id, member: true, stamp: 2))
  guard let snapshot = try? SpaceJournal.writeSnapshot(of: state, in: staging, master: master),
    let segment = try? JournalSegmentWriter(directory: staging, key: master.journalKey()),
    (try? segment.append([.selection(id, selected: true, stamp: 3)])) != nil
  else { fatalError("cannot write the space seed") }
  var input: [UInt8] = []
  func add(_ kind: UInt8, _ fileID: BlobID, _ path: String) {
    guard let contents = try? readWholeFile(path, limit: 1 << 20) else { fatalError("cannot read \(path)") }
    input +=
      [kind] + fileID.bytes + withUnsafeBytes(of: UInt32(contents.count).bigEndian, Array.init) + contents
  }
  add(0, BlobID(hex: String(snapshot.dropFirst(2)))!, staging + "/" + snapshot)
  add(1, segment.id, segment.path)
  func blob(_ kind: BlobKind, _ plaintext: [UInt8]) -> String {
    guard let file = try? TemporaryFile(in: staging),
      let writer = try? BlobWriter(kind: kind, key: master.blobKey(kind: kind, id: id), output: file)
    else { fatalError("cannot write the space seed") }
    if kind == .thumbnail {
      try? ThumbnailBlob.write(plaintext, to: writer)
    } else {
      try? writer.write(plaintext)
    }
    try? writer.finish()
    let path = staging + "/" + (kind == .original ? "photo" : "thumb")
    try? file.replace(path)
    return path
  }
  add(2, id, blob(.original, (try! OriginalBlob.header(for: record)) + [1, 2, 3]))
  add(3, id, blob(.thumbnail, [0xFF, 0xD8, 0xFF, 0xD9]))
  mkdir(folder + "/space", 0o700)
  _ = FileManager.default.createFile(atPath: folder + "/space/space-one", contents: Data(input))
}
