import Foundation
import XCTest

@testable import VaultCore

/// A known-answer vector block of docs/FORMAT.md that does not parse.
struct VectorFormatError: Error, CustomStringConvertible {
  let description: String
}

/// The fields of every fenced block marked `vector` in `markdown`, in page order: lines of
/// `field: value`, `name` first; a line that starts with a space continues the value above
/// it, joined with one space (docs/FORMAT.md, "Test vectors").
func vectorBlocks(in markdown: String) throws -> [[String: String]] {
  var blocks: [[String: String]] = []
  var current: [String: String]?
  var lastField: String?
  for (number, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
    let place = "FORMAT.md line \(number + 1)"
    guard var block = current else {
      if line == "```vector" { current = [:] }
      continue
    }
    if line == "```" {
      guard block["name"] != nil else {
        throw VectorFormatError(description: "\(place): a vector without a name")
      }
      blocks.append(block)
      current = nil
      lastField = nil
      continue
    }
    if line.first == " ", let field = lastField {
      block[field]! += " " + line.trimmingCharacters(in: .whitespaces)
    } else {
      guard let colon = line.firstIndex(of: ":") else {
        throw VectorFormatError(description: "\(place): not a 'field: value' line")
      }
      let field = String(line[..<colon])
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      guard block[field] == nil else { throw VectorFormatError(description: "\(place): '\(field)' twice") }
      guard block.isEmpty == (field == "name") else {
        throw VectorFormatError(description: "\(place): a vector starts with its name, once")
      }
      block[field] = value
      lastField = field
    }
    current = block
  }
  if current != nil { throw VectorFormatError(description: "FORMAT.md: a vector block is not closed") }
  return blocks
}

/// The vectors of docs/FORMAT.md called `name`, or all of them.
func formatVectors(named name: String? = nil) throws -> [[String: String]] {
  let markdown = try String(contentsOfFile: projectPath + "/docs/FORMAT.md", encoding: .utf8)
  return try vectorBlocks(in: markdown).filter { name == nil || $0["name"] == name }
}

/// A vector's field, which must be there.
func field(_ vector: [String: String], _ name: String) throws -> String {
  guard let value = vector[name] else {
    throw VectorFormatError(description: "vector '\(vector["name"] ?? "")' has no '\(name)'")
  }
  return value
}

/// A vector's byte string: lowercase hex, spaces ignored.
func hexField(_ vector: [String: String], _ name: String) throws -> [UInt8] {
  let hex = try field(vector, name).replacingOccurrences(of: " ", with: "")
  guard hex == hex.lowercased(), let bytes = decodeHex(hex) else {
    throw VectorFormatError(description: "vector '\(vector["name"] ?? "")': '\(name)' is not lowercase hex")
  }
  return bytes
}

/// A vector's list of decimal numbers, separated by spaces.
func numbersField(_ vector: [String: String], _ name: String) throws -> [Int] {
  try field(vector, name).split(separator: " ").map { word in
    guard let number = Int(word) else {
      throw VectorFormatError(description: "vector '\(vector["name"] ?? "")': '\(word)' is not a number")
    }
    return number
  }
}

func secureBytes(_ bytes: [UInt8]) -> SecureBytes {
  bytes.withUnsafeBytes { SecureBytes(copying: $0) }
}

/// Checks the known answers written in docs/FORMAT.md against the code.
final class FormatVectorTests: XCTestCase {
  /// Every vector name FORMAT.md uses has a test here: a vector nobody checks is a promise
  /// nobody keeps.
  static let checkedNames: Set<String> = [
    "padme", "blob key", "blob", "journal entry", "details entry", "journal record", "album entry",
    // SeekableBlobVectorTests
    "seekable blob",
    // TrashJournalTests
    "trash entry",
    // OffloadJournalTests
    "offload entry",
    // SessionKeyPayloadTests
    "session key name", "session key",
    // RecoveryKeyTests
    "recovery key", "recovery key typed", "recovery file",
  ]

  func testEveryVectorIsChecked() throws {
    let vectors = try formatVectors()
    XCTAssertFalse(vectors.isEmpty)
    for vector in vectors {
      XCTAssertTrue(Self.checkedNames.contains(vector["name"]!), "no test reads vector '\(vector["name"]!)'")
    }
  }

  func testTheParserReadsContinuationsAndRefusesMalformedBlocks() throws {
    let text = "text\n```vector\nname: x\nbytes: 00 01\n  0203\n```\n```\nnot: a vector\n```\n"
    XCTAssertEqual(try vectorBlocks(in: text), [["name": "x", "bytes": "00 01 0203"]])
    XCTAssertEqual(try hexField(try vectorBlocks(in: text)[0], "bytes"), [0, 1, 2, 3])
    for bad in [
      "```vector\nkind: 01\n```\n", "```vector\nname: x\nname: y\n```\n", "```vector\nname: x\n0102\n```\n",
      "```vector\nname: x\n",
    ] {
      XCTAssertThrowsError(try vectorBlocks(in: bad), bad.debugDescription)
    }
  }

  func testPadme() throws {
    let vectors = try formatVectors(named: "padme")
    XCTAssertEqual(vectors.count, 1)
    for vector in vectors {
      let lengths = try numbersField(vector, "length")
      let padded = try numbersField(vector, "padded")
      XCTAssertEqual(lengths.count, padded.count)
      for (length, expected) in zip(lengths, padded) {
        XCTAssertEqual(Padme.paddedLength(length), expected, "padme(\(length))")
      }
    }
  }

  func testBlobKeys() throws {
    let vectors = try formatVectors(named: "blob key")
    XCTAssertFalse(vectors.isEmpty)
    for vector in vectors {
      let master = MasterKey(key: secureBytes(try hexField(vector, "master-key")))
      let kind = try XCTUnwrap(BlobKind(rawValue: try hexField(vector, "kind").first!))
      let id = try XCTUnwrap(BlobID(hex: try field(vector, "id")))
      let key = master.blobKey(kind: kind, id: id)
      XCTAssertEqual(
        hexString(UnsafeBufferPointer(start: key.bytes, count: key.count)),
        hexString(try hexField(vector, "blob-key")), "kind \(kind)")
    }
  }

  /// Reads a blob's payload as vault reads that kind, through to the end of its padding.
  func readPayload(_ reader: BlobReader, kind: BlobKind) throws -> [UInt8] {
    switch kind {
    case .thumbnail:
      return try ThumbnailBlob.read(from: reader)
    default:
      throw VectorFormatError(description: "no reader for blob vectors of kind \(kind.rawValue) yet")
    }
  }

  func testBlobs() throws {
    let folder = try makeTemporaryFolder(self)
    let vectors = try formatVectors(named: "blob")
    XCTAssertFalse(vectors.isEmpty)
    for (number, vector) in vectors.enumerated() {
      let path = folder + "/blob-\(number)"
      let blob = try hexField(vector, "blob")
      try writeBytes(blob, to: path)
      let key = secureBytes(try hexField(vector, "key"))
      let kind = try XCTUnwrap(BlobKind(rawValue: try hexField(vector, "kind").first!))
      let expect = try field(vector, "expect")
      let reader = try BlobReader(path: path, kind: kind, key: key, what: "vector \(number + 1)")
      XCTAssertEqual(reader.version, BlobFormat.paddedVersion)
      if expect == "success" {
        let plaintext = try hexField(vector, "plaintext")
        XCTAssertEqual(blob.count, BlobFormat.blobLength(plaintextLength: plaintext.count))
        let whole = try BlobReader(path: path, kind: kind, key: key, what: "vector \(number + 1)")
        XCTAssertEqual(try whole.readToEnd(limit: 1 << 20), plaintext, "vector \(number + 1)")
        let payload = try hexField(vector, "payload")
        XCTAssertEqual(try readPayload(reader, kind: kind), payload, "vector \(number + 1)")
        XCTAssertEqual(reader.position, plaintext.count, "the padding was read to the end")
        XCTAssertEqual(Padme.paddedLength(4 + payload.count), plaintext.count)
      } else {
        let reason = try XCTUnwrap(
          expect.hasPrefix("damage: ") ? String(expect.dropFirst("damage: ".count)) : nil,
          "expect: \(expect)")
        XCTAssertThrowsError(try readPayload(reader, kind: kind), "vector \(number + 1)") { error in
          XCTAssertEqual(error as? VaultError, .damagedBlob(what: "vector \(number + 1)", reason: reason))
        }
      }
    }
  }

  func testJournalEntries() throws {
    let vectors = try formatVectors(named: "journal entry")
    XCTAssertFalse(vectors.isEmpty)
    for vector in vectors {
      let number = { (name: String) in try numbersField(vector, name) }
      let modified = try number("modified")
      let imported = try number("imported")
      var record = PhotoRecord(
        id: try XCTUnwrap(BlobID(hex: hexString(try hexField(vector, "id")))),
        name: try field(vector, "file-name"),
        bytes: Int64(try number("bytes")[0]),
        format: try XCTUnwrap(JournalEntry.format(code: UInt8(try number("format")[0]))),
        width: try number("width")[0], height: try number("height")[0],
        orientation: try number("orientation")[0],
        modifiedAt: Timestamp(seconds: Int64(modified[0]), nanoseconds: Int32(modified[1])),
        importedAt: Timestamp(seconds: Int64(imported[0]), nanoseconds: Int32(imported[1])),
        contentHash: hexString(try hexField(vector, "content-hash")))
      if record.format.isVideo {
        record.durationMicroseconds = Int64(try number("duration-microseconds")[0])
        record.codec = try field(vector, "codec")
      }
      let entry = JournalEntry.added(record, order: Int64(try number("order")[0]))
      var writer = ByteWriter()
      entry.encode(into: &writer)
      XCTAssertEqual(hexString(writer.output), hexString(try hexField(vector, "encoded")))
      var decoded: [JournalEntry] = []
      _ = try (try hexField(vector, "encoded") + [0]).withUnsafeBytes {
        try JournalEntry.decodeAll($0) { decoded.append($0) }
      }
      XCTAssertEqual(decoded, [entry])
    }
  }

  func testAlbumEntries() throws {
    let vectors = try formatVectors(named: "album entry")
    XCTAssertEqual(
      Set(try vectors.map { try field($0, "entry") }), ["album name", "album deleted", "album membership"])
    for vector in vectors {
      let album = AlbumID(try XCTUnwrap(BlobID(hex: hexString(try hexField(vector, "album")))))
      let stamp = { Int64(try numbersField(vector, "stamp")[0]) }
      let entry: JournalEntry
      switch try field(vector, "entry") {
      case "album name":
        entry = .albumNamed(album, name: try field(vector, "album-name"), stamp: try stamp())
      case "album deleted":
        entry = .albumDeleted(album)
      default:
        let photo = try XCTUnwrap(BlobID(hex: hexString(try hexField(vector, "id"))))
        entry = .albumMembership(
          album, photo: photo, member: try numbersField(vector, "member")[0] == 1, stamp: try stamp())
      }
      let encoded = try hexField(vector, "encoded")
      let kind = try field(vector, "entry")
      var writer = ByteWriter()
      entry.encode(into: &writer)
      XCTAssertEqual(hexString(writer.output), hexString(encoded), kind)
      XCTAssertEqual(entry.encodedLength, encoded.count)
      var decoded: [JournalEntry] = []
      _ = try (encoded + [0]).withUnsafeBytes { try JournalEntry.decodeAll($0) { decoded.append($0) } }
      XCTAssertEqual(decoded, [entry])
    }
  }

  func testDetailsEntries() throws {
    let vectors = try formatVectors(named: "details entry")
    XCTAssertEqual(vectors.count, 2)
    for vector in vectors {
      var details = PhotoDetails()
      if vector["taken"] != nil {
        let taken = try numbersField(vector, "taken")
        details.taken = CaptureTime(
          localSeconds: Int64(taken[0]), nanoseconds: Int32(taken[1]),
          utcOffsetMinutes: try vector["utc-offset-minutes"].map { _ in
            Int16(try numbersField(vector, "utc-offset-minutes")[0])
          })
      }
      details.cameraMake = vector["camera-make"]
      details.cameraModel = vector["camera-model"]
      let id = try XCTUnwrap(BlobID(hex: hexString(try hexField(vector, "id"))))
      let entry = JournalEntry.details(id, details, stamp: Int64(try numbersField(vector, "stamp")[0]))
      let encoded = try hexField(vector, "encoded")
      var writer = ByteWriter()
      entry.encode(into: &writer)
      XCTAssertEqual(hexString(writer.output), hexString(encoded))
      XCTAssertEqual(entry.encodedLength, encoded.count)
      var decoded: [JournalEntry] = []
      _ = try (encoded + [0]).withUnsafeBytes { try JournalEntry.decodeAll($0) { decoded.append($0) } }
      XCTAssertEqual(decoded, [entry])
    }
  }

  func testJournalRecords() throws {
    let vectors = try formatVectors(named: "journal record")
    XCTAssertFalse(vectors.isEmpty)
    for vector in vectors {
      let master = MasterKey(key: secureBytes(try hexField(vector, "master-key")))
      let key = master.journalKey()
      XCTAssertEqual(
        hexString(UnsafeBufferPointer(start: key.bytes, count: key.count)), try field(vector, "journal-key"))
      let segment = try XCTUnwrap(BlobID(hex: hexString(try hexField(vector, "segment"))))
      let header = JournalSegment.header(id: segment)
      let number = try numbersField(vector, "record")[0]
      let plaintext = try hexField(vector, "plaintext")
      let expected = try hexField(vector, "sealed-record")
      let sealed = JournalSegment.seal(
        plaintext, header: header, record: UInt64(number), key: key, nonce: try hexField(vector, "nonce"))
      XCTAssertEqual(hexString(sealed), hexString(expected))
      // Read back as the record of that number in a segment file: every record before it is
      // needed, so the vector's is preceded by records sealed here.
      let folder = try makeTemporaryFolder(self)
      let path = folder + "/j-" + segment.hex
      var file = header
      for earlier in 0..<number {
        file += JournalSegment.seal(
          JournalSegment.plaintext([]), header: header, record: UInt64(earlier), key: key,
          nonce: Sodium.randomBytes(24))
      }
      try writeBytes(file + expected, to: path)
      var entries: [JournalEntry] = []
      let contents = try JournalSegment.read(path: path, id: segment, key: key) { entries.append($0) }
      XCTAssertEqual(contents.records, number + 1)
      XCTAssertFalse(contents.tornTail)
      XCTAssertEqual(entries.count, 3)
      // The same bytes as record 0 do not authenticate.
      try writeBytes(header + expected, to: path)
      XCTAssertThrowsError(try JournalSegment.read(path: path, id: segment, key: key) { _ in })
    }
  }
}
