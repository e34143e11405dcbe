import CSodium
import Foundation
@_exported import VaultTestSupport
import XCTest

@testable import VaultCore

func password(_ text: String) throws -> Password {
  try Password(utf8: Array(text.utf8))
}

/// A vault with the cheapest KDF the format accepts.
func makeVault(in folder: String) throws -> Vault {
  try Vault.create(at: folder + "/vault", kdf: KDFParameters(preset: .interactive))
}

/// A new vault in a temporary folder of `test`'s, with one space for `password`, opened
/// (to write, unless asked otherwise).
func makeOpenedSpace(_ test: XCTestCase, password text: String, access: Space.Access = .write) throws -> (
  folder: String, vault: Vault, space: Space
) {
  let folder = try makeTemporaryFolder(test)
  let vault = try makeVault(in: folder)
  try vault.createSpace(password: password(text))
  return (folder, vault, try vault.unlock(password: password(text), access: access))
}

/// A blob of `version` whose plaintext is exactly `plaintext`, no padding added: what a
/// format-1 writer made, or what a forger who has the key can make.
func sealedBlob(_ plaintext: [UInt8], kind: BlobKind, version: UInt8, key: SecureBytes) -> [UInt8] {
  let state = SecretStreamState()
  let prefix = BlobFormat.prefix(kind: kind, version: version)
  var header = [UInt8](repeating: 0, count: BlobFormat.streamHeaderLength)
  crypto_secretstream_xchacha20poly1305_init_push(state.pointer, &header, key.bytes)
  var blob = prefix + header
  var offset = 0
  while true {
    let count = min(BlobFormat.chunkSize, plaintext.count - offset)
    let isFinal = count < BlobFormat.chunkSize
    var sealed = [UInt8](repeating: 0, count: count + BlobFormat.chunkOverhead)
    plaintext.withUnsafeBufferPointer { all in
      _ = crypto_secretstream_xchacha20poly1305_push(
        state.pointer, &sealed, nil, all.baseAddress.map { $0 + offset }, UInt64(count), prefix,
        UInt64(prefix.count), isFinal ? BlobFormat.tagFinal : BlobFormat.tagMessage)
    }
    blob += sealed
    offset += count
    if isFinal { return blob }
  }
}
