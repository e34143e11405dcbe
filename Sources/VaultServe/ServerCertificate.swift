import Foundation
import NIOSSL
import VaultCore

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

  /// Makes a key and a certificate naming `address` (an IPv4 or IPv6 literal). The
  /// certificate names the address, not the program: it is shown to anyone who connects,
  /// token or not, and must not say that this machine runs a photo vault.
  public init(address: String, now: Date = Date()) throws {
    _ = try Self.addressBytes(address)
    var serial = [UInt8](repeating: 0, count: 16)
    var generator = SystemRandomNumberGenerator()
    for index in serial.indices { serial[index] = generator.next() }
    let made = try SelfSignedCertificate.make(
      address: address, serial: serial, notBefore: now.addingTimeInterval(Self.validFrom),
      notAfter: now.addingTimeInterval(Self.validUntil))
    defer { made.key.wipeShared() }
    der = made.certificate
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: [.certificate(try NIOSSLCertificate(bytes: der, format: .der))],
      privateKey: .privateKey(try NIOSSLPrivateKey(bytes: made.key, format: .der)))
    configuration.minimumTLSVersion = .tlsv12
    tlsConfiguration = configuration
  }

  /// The SHA-256 of the certificate, as browsers show it: `AB:CD:…` (32 bytes).
  public var fingerprint: String {
    SHA256.hash(der).map { String(format: "%02X", $0) }.joined(separator: ":")
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
