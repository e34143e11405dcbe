import Foundation

/// The plain `vault.json` header: format name, version and KDF parameters. Written once,
/// when the vault is made.
struct VaultHeader: Equatable {
  static let fileName = "vault.json"
  static let formatName = "vault"
  static let version = 1

  var kdf: KDFParameters

  private struct Stored: Codable {
    struct KDF: Codable {
      var algorithm: String
      var opslimit: UInt64
      var memlimit: UInt64
      var salt: String
    }
    var format: String
    var version: Int
    var kdf: KDF
  }

  func encoded() throws -> [UInt8] {
    let stored = Stored(
      format: Self.formatName, version: Self.version,
      kdf: .init(
        algorithm: KDFParameters.algorithmName, opslimit: kdf.opsLimit, memlimit: kdf.memLimit,
        salt: hexString(kdf.salt)))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    return Array(try encoder.encode(stored)) + [0x0A]
  }

  /// Parses and checks a header; `path` names the file in errors.
  static func decode(_ bytes: [UInt8], path: String) throws -> VaultHeader {
    let stored: Stored
    do {
      stored = try JSONDecoder().decode(Stored.self, from: Data(bytes))
    } catch {
      throw VaultError.invalidHeader(path: path, reason: "not valid vault JSON")
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
