import CSodium
import XCTest

@testable import VaultCore

/// The chunks' cipher computes libsodium's XChaCha20-Poly1305 (IETF) through OpenSSL
/// (`CVaultCipher`): every blob sealed before reads, and every blob sealed now reads with
/// libsodium alone. Random keys, nonces, additional data and lengths, both ways.
final class ChunkCipherTests: XCTestCase {
  /// Lengths where implementations branch: empty, under and over one ChaCha20 block (64),
  /// Poly1305's 16-byte blocks, vector widths (256, 512 bytes), and a whole chunk.
  let edgeLengths = [0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 257, 511, 512, 513, 4095, 65_535, 65_536]

  func randomCipher() -> ChunkCipher {
    ChunkCipher(
      key: SecureBytes.random(count: 32), noncePrefix: Sodium.randomBytes(16),
      additionalData: Sodium.randomBytes(Int.random(in: 0...6)))
  }

  func randomLength() -> Int { Bool.random() ? edgeLengths.randomElement()! : Int.random(in: 0...65_536) }

  /// What libsodium seals for chunk `index` under `cipher`.
  func sodiumSealed(_ plaintext: [UInt8], by cipher: ChunkCipher, index: Int, last: Bool) -> [UInt8] {
    var sealed = [UInt8](repeating: 0, count: plaintext.count + SeekableBlobFormat.tagLength)
    var sealedLength: UInt64 = 0
    let nonce = SeekableBlobFormat.nonce(prefix: cipher.noncePrefix, index: index, last: last)
    XCTAssertEqual(
      crypto_aead_xchacha20poly1305_ietf_encrypt(
        &sealed, &sealedLength, plaintext, UInt64(plaintext.count), cipher.additionalData,
        UInt64(cipher.additionalData.count), nil, nonce, cipher.key.bytes), 0)
    return sealed
  }

  func sealed(_ plaintext: [UInt8], by cipher: ChunkCipher, index: Int, last: Bool) -> [UInt8] {
    var sealed = [UInt8](repeating: 0, count: plaintext.count + SeekableBlobFormat.tagLength)
    cipher.seal(plaintext, count: plaintext.count, index: index, last: last, into: &sealed)
    return sealed
  }

  /// What `cipher` opens of `sealed` as chunk `index`, nil if it does not authenticate
  /// (then the plaintext's room must be wiped).
  func opened(_ sealed: [UInt8], by cipher: ChunkCipher, index: Int, last: Bool) -> [UInt8]? {
    var plaintext = [UInt8](repeating: 0xA5, count: sealed.count - SeekableBlobFormat.tagLength)
    guard cipher.open(sealed, count: sealed.count, index: index, last: last, into: &plaintext) else {
      XCTAssertTrue(plaintext.allSatisfy { $0 == 0 }, "what failed to authenticate is wiped")
      return nil
    }
    return plaintext
  }

  func testItSealsTheBytesLibsodiumSealsAndOpensThem() {
    for _ in 0..<300 {
      let cipher = randomCipher()
      let plaintext = Sodium.randomBytes(randomLength())
      let index = Int.random(in: 0..<1 << 20)
      let last = Bool.random()
      let ours = sealed(plaintext, by: cipher, index: index, last: last)
      XCTAssertTrue(
        ours == sodiumSealed(plaintext, by: cipher, index: index, last: last),
        "\(plaintext.count) bytes sealed")
      XCTAssertTrue(
        opened(ours, by: cipher, index: index, last: last) == plaintext, "\(plaintext.count) bytes")
    }
  }

  func testWhatLibsodiumSealedOpensAndEveryChangeIsRefused() {
    for _ in 0..<200 {
      let cipher = randomCipher()
      let plaintext = Sodium.randomBytes(randomLength())
      let index = Int.random(in: 1..<1 << 20)
      let sealed = sodiumSealed(plaintext, by: cipher, index: index, last: false)
      XCTAssertTrue(
        opened(sealed, by: cipher, index: index, last: false) == plaintext, "\(plaintext.count) bytes")
      var flipped = sealed
      flipped[Int.random(in: 0..<flipped.count)] ^= UInt8(1) << UInt8.random(in: 0...7)
      XCTAssertNil(opened(flipped, by: cipher, index: index, last: false), "a flipped bit")
      XCTAssertNil(opened(sealed, by: cipher, index: index - 1, last: false), "another chunk's place")
      XCTAssertNil(opened(sealed, by: cipher, index: index, last: true), "sealed as not the last")
      let otherData = ChunkCipher(
        key: cipher.key, noncePrefix: cipher.noncePrefix, additionalData: cipher.additionalData + [1])
      XCTAssertNil(opened(sealed, by: otherData, index: index, last: false), "other additional data")
      if sealed.count > SeekableBlobFormat.tagLength {
        XCTAssertNil(opened(Array(sealed.dropLast()), by: cipher, index: index, last: false), "truncated")
      }
    }
  }

  /// The chunks are sealed and opened in place (the sealed bytes over the plaintext's).
  func testItSealsAndOpensInPlace() {
    let cipher = randomCipher()
    let plaintext = Sodium.randomBytes(65_536)
    var buffer = plaintext + [UInt8](repeating: 0, count: SeekableBlobFormat.tagLength)
    buffer.withUnsafeMutableBufferPointer { bytes in
      cipher.seal(bytes.baseAddress!, count: plaintext.count, index: 7, last: true, into: bytes.baseAddress!)
    }
    XCTAssertTrue(buffer == sodiumSealed(plaintext, by: cipher, index: 7, last: true), "sealed in place")
    let opened = buffer.withUnsafeMutableBufferPointer { bytes in
      cipher.open(bytes.baseAddress!, count: bytes.count, index: 7, last: true, into: bytes.baseAddress!)
    }
    XCTAssertTrue(opened)
    XCTAssertTrue(Array(buffer.prefix(plaintext.count)) == plaintext, "opened in place")
  }
}
