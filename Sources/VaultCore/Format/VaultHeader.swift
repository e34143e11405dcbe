import Foundation

/// The plain `vault.json` header: format name, version and KDF parameters. Written once,
/// when the vault is made.
package struct VaultHeader: Equatable {
  static let fileName = "vault.json"
  static let formatName = "vault"
  static let version = 1

  var kdf: KDFParameters

  struct Stored: Codable {
    struct KDF: Codable {
      var algorithm: String
      var opslimit: UInt64
      var memlimit: UInt64
      var salt: String
    }
    var format: String
    var version: Int
    var kdf: KDF
    var checksum: String
  }

  /// BLAKE2b-128 (unkeyed) of the header's values, so that any change to the file, even
  /// one that still parses, is reported as damage to the file rather than looking like a
  /// wrong password. It protects against accidents, not against forgery (the KDF bounds
  /// and the authenticated key file do that).
  static func checksum(format: String, version: Int, kdf: Stored.KDF) -> String {
    let text = "\(format)|\(version)|\(kdf.algorithm)|\(kdf.opslimit)|\(kdf.memlimit)|\(kdf.salt)"
    let bytes = Array(text.utf8)
    return hexString(Sodium.genericHash(bytes, length: 16))
  }

  func encoded() throws -> [UInt8] {
    let storedKDF = Stored.KDF(
      algorithm: KDFParameters.algorithmName, opslimit: kdf.opsLimit, memlimit: kdf.memLimit,
      salt: hexString(kdf.salt))
    let stored = Stored(
      format: Self.formatName, version: Self.version, kdf: storedKDF,
      checksum: Self.checksum(format: Self.formatName, version: Self.version, kdf: storedKDF))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return Array(try encoder.encode(stored)) + [0x0A]
  }

  /// Parses and checks a header; `path` names the file in errors.
  package static func decode(_ bytes: [UInt8], path: String) throws -> VaultHeader {
    let stored: Stored
    do {
      stored = try JSONDecoder().decode(Stored.self, from: Data(bytes))
    } catch {
      throw VaultError.invalidHeader(path: path, reason: "not valid vault JSON")
    }
    guard stored.checksum == checksum(format: stored.format, version: stored.version, kdf: stored.kdf) else {
      throw VaultError.invalidHeader(
        path: path, reason: "its checksum does not match its contents (the file was changed)")
    }
    guard stored.format == formatName else {
      throw VaultError.invalidHeader(path: path, reason: "format is '\(stored.format)', not '\(formatName)'")
    }
    guard stored.version == version else {
      throw VaultError.invalidHeader(path: path, reason: "format version \(stored.version) is not supported")
    }
    guard stored.kdf.algorithm == KDFParameters.algorithmName else {
      throw VaultError.invalidHeader(path: path, reason: "unknown key derivation '\(stored.kdf.algorithm)'")
    }
    guard let salt = decodeHex(stored.kdf.salt) else {
      throw VaultError.invalidHeader(path: path, reason: "salt is not hex")
    }
    return VaultHeader(
      kdf: try KDFParameters(opsLimit: stored.kdf.opslimit, memLimit: stored.kdf.memlimit, salt: salt))
  }
}
