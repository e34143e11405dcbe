import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// The TLS identity of one run: a fresh P-256 key and a self-signed certificate for the
/// address served. Both exist only in this process's memory; the key is never written
/// anywhere, so the certificate dies with the process, like the token.
public struct ServerCertificate: Sendable {
  /// The certificate, DER-encoded: what the client receives and fingerprints.
  public let der: [UInt8]
  /// The TLS configuration that presents the certificate (TLS 1.2 and later).
  public let tlsConfiguration: TLSConfiguration

  /// A validity that starts a day back (a phone whose clock is behind still accepts it)
  /// and ends a week on: long enough for any run, short if the certificate is ever kept.
  static let validFrom: TimeInterval = -24 * 3600
  static let validUntil: TimeInterval = 7 * 24 * 3600

  /// Makes a key and a certificate naming `address` (an IPv4 or IPv6 literal).
  public init(address: String, now: Date = Date()) throws {
    let key = P256.Signing.PrivateKey()
    let name = try DistinguishedName {
      // The address, not the program: the certificate is shown to anyone who connects,
      // token or not, and must not say that this machine runs a photo vault.
      CommonName(address)
    }
    var serial = [UInt8](repeating: 0, count: 16)
    var generator = SystemRandomNumberGenerator()
    for index in serial.indices { serial[index] = generator.next() }
    let certificate = try Certificate(
      version: .v3,
      serialNumber: Certificate.SerialNumber(bytes: serial),
      publicKey: Certificate.PublicKey(key.publicKey),
      notValidBefore: now.addingTimeInterval(Self.validFrom),
      notValidAfter: now.addingTimeInterval(Self.validUntil),
      issuer: name,
      subject: name,
      signatureAlgorithm: .ecdsaWithSHA256,
      extensions: try Certificate.Extensions {
        Critical(BasicConstraints.notCertificateAuthority)
        Critical(KeyUsage(digitalSignature: true))
        try ExtendedKeyUsage([.serverAuth])
        SubjectAlternativeNames([
          .ipAddress(ASN1OctetString(contentBytes: try Self.addressBytes(address)[...]))
        ])
      },
      issuerPrivateKey: Certificate.PrivateKey(key))
    var serializer = DER.Serializer()
    try serializer.serialize(certificate)
    der = serializer.serializedBytes

    var keyDER = [UInt8](key.derRepresentation)
    defer { for index in keyDER.indices { keyDER[index] = 0 } }
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: [.certificate(try NIOSSLCertificate(bytes: der, format: .der))],
      privateKey: .privateKey(try NIOSSLPrivateKey(bytes: keyDER, format: .der)))
    configuration.minimumTLSVersion = .tlsv12
    tlsConfiguration = configuration
  }

  /// The SHA-256 of the certificate, as browsers show it: `AB:CD:…` (32 bytes).
  public var fingerprint: String {
    SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
  }

  /// The 4 or 16 bytes of an IP address literal.
  static func addressBytes(_ address: String) throws -> [UInt8] {
    var v4 = in_addr()
    if inet_pton(AF_INET, address, &v4) == 1 {
      return withUnsafeBytes(of: &v4) { Array($0) }
    }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, address, &v6) == 1 {
      return withUnsafeBytes(of: &v6) { Array($0) }
    }
    throw ServeError.invalidAddress(address)
  }
}
