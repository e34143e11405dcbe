import CNIOBoringSSL
import Foundation

/// A fresh P-256 key and a self-signed certificate for a server at an IP address, made by
/// the BoringSSL that swift-nio-ssl serves TLS with (a second copy of BoringSSL, and an X.509
/// library over it, would only add minutes to every build).
enum SelfSignedCertificate {
  struct Failure: Error, CustomStringConvertible {
    let step: String
    var description: String { "cannot make the server's certificate (\(step))" }
  }

  /// The certificate (DER) and its key (DER, which the caller wipes), valid from `notBefore`
  /// to `notAfter`, naming `address` (an IP literal) as its subject and only name.
  static func make(address: String, serial: [UInt8], notBefore: Date, notAfter: Date) throws
    -> (certificate: [UInt8], key: [UInt8])
  {
    let key = try newKey()
    defer { EVP_PKEY_free(key) }
    guard let x509 = X509_new() else { throw Failure(step: "X509_new") }
    defer { X509_free(x509) }
    try check(X509_set_version(x509, Int(X509_VERSION_3)), "version")
    try setSerial(x509, serial)
    try check(
      ASN1_TIME_set_posix(X509_getm_notBefore(x509), Int64(notBefore.timeIntervalSince1970)) != nil, "start")
    try check(
      ASN1_TIME_set_posix(X509_getm_notAfter(x509), Int64(notAfter.timeIntervalSince1970)) != nil, "end")
    try setName(x509, address)
    try check(X509_set_pubkey(x509, key), "public key")
    // The extensions a browser expects of a server's leaf certificate.
    try addExtension(x509, NID_basic_constraints, "critical,CA:FALSE")
    try addExtension(x509, NID_key_usage, "critical,digitalSignature")
    try addExtension(x509, NID_ext_key_usage, "serverAuth")
    try addExtension(x509, NID_subject_alt_name, "IP:" + address)
    try check(X509_sign(x509, key, EVP_sha256()) > 0, "signature")
    return (try der(of: x509, i2d_X509), try der(of: key, i2d_PrivateKey))
  }

  private static func newKey() throws -> OpaquePointer {
    guard let key = EVP_PKEY_new() else { throw Failure(step: "EVP_PKEY_new") }
    guard let ecKey = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1), EC_KEY_generate_key(ecKey) == 1 else {
      EVP_PKEY_free(key)
      throw Failure(step: "P-256 key")
    }
    guard EVP_PKEY_assign_EC_KEY(key, ecKey) == 1 else {
      EC_KEY_free(ecKey)
      EVP_PKEY_free(key)
      throw Failure(step: "P-256 key")
    }
    return key
  }

  private static func setSerial(_ x509: OpaquePointer, _ serial: [UInt8]) throws {
    guard let number = BN_bin2bn(serial, serial.count, nil) else { throw Failure(step: "serial") }
    defer { BN_free(number) }
    guard let integer = BN_to_ASN1_INTEGER(number, nil) else { throw Failure(step: "serial") }
    defer { ASN1_INTEGER_free(integer) }
    try check(X509_set_serialNumber(x509, integer), "serial")
  }

  /// Subject and issuer: the address as common name.
  private static func setName(_ x509: OpaquePointer, _ address: String) throws {
    guard let name = X509_NAME_new() else { throw Failure(step: "name") }
    defer { X509_NAME_free(name) }
    let bytes = Array(address.utf8)
    try check(
      X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8, bytes, bytes.count, -1, 0), "name")
    try check(X509_set_subject_name(x509, name), "subject")
    try check(X509_set_issuer_name(x509, name), "issuer")
  }

  private static func addExtension(_ x509: OpaquePointer, _ nid: Int32, _ value: String) throws {
    guard let fieldExtension = X509V3_EXT_nconf_nid(nil, nil, nid, value) else { throw Failure(step: value) }
    defer { X509_EXTENSION_free(fieldExtension) }
    try check(X509_add_ext(x509, fieldExtension, -1), value)
  }

  /// The DER of `object` by an i2d function (asked for the length first, then to write).
  private static func der(
    of object: OpaquePointer,
    _ encode: (OpaquePointer, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
  ) throws -> [UInt8] {
    let length = encode(object, nil)
    guard length > 0 else { throw Failure(step: "DER") }
    var bytes = [UInt8](repeating: 0, count: Int(length))
    let written = bytes.withUnsafeMutableBufferPointer { buffer in
      var cursor = buffer.baseAddress
      return encode(object, &cursor)
    }
    guard written == length else { throw Failure(step: "DER") }
    return bytes
  }

  private static func check(_ status: Int32, _ step: String) throws {
    try check(status == 1, step)
  }

  private static func check(_ succeeded: Bool, _ step: String) throws {
    guard succeeded else { throw Failure(step: step) }
  }
}
