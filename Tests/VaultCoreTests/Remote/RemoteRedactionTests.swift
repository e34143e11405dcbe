import XCTest

@testable import VaultCore

/// The secrets of an rclone connection string are masked wherever vault names a remote;
/// everything else of it reads as typed.
final class RemoteRedactionTests: XCTestCase {
  func testSecretParametersAreMasked() {
    let cases = [
      (":sftp,host=h,user=u,pass=X:/p", ":sftp,host=h,user=u,pass=***:/p"),
      ("box,token=\"a,b:c\",host=h:path", "box,token=***,host=h:path"),
      (
        ":s3,access_key_id=A,secret_access_key='s''q':bucket",
        ":s3,access_key_id=***,secret_access_key=***:bucket"
      ),
      ("b2:bucket/vault", "b2:bucket/vault"),
      (":sftp,key_file=/k,key_file_pass=P,key_pem=K:x", ":sftp,key_file=/k,key_file_pass=***,key_pem=***:x"),
      ("/mnt/usb/vault", "/mnt/usb/vault"),
      ("cannot reach ':sftp,password=p:x': dial tcp", "cannot reach ':sftp,password=***:x': dial tcp"),
    ]
    for (typed, shown) in cases { XCTAssertEqual(RemoteRedaction.redacted(typed), shown, typed) }
  }

  /// Random secrets, quoted as rclone takes them when they hold a ',' or ':', never show,
  /// and the parameters around them stay as typed.
  func testNoRandomSecretShows() {
    let seed = UInt64.random(in: 0...UInt64.max)
    var generator = SeededGenerator(seed: seed)
    let alphabet = Array("abcXYZ019,:\"'=_-./ ")
    for _ in 0..<2000 {
      let secret =
        "S"
        + String(
          (0..<Int.random(in: 1...12, using: &generator)).map { _ in
            alphabet.randomElement(using: &generator)!
          })
      let name = ["pass", "password", "token", "client_secret", "key_file_pass"].randomElement(
        using: &generator)!
      let quoted = "\"" + secret.replacingOccurrences(of: "\"", with: "\"\"") + "\""
      let typed = ":sftp,host=h,\(name)=\(quoted),user=u:/photos"
      let shown = RemoteRedaction.redacted(typed)
      XCTAssertEqual(shown, ":sftp,host=h,\(name)=***,user=u:/photos", "seed \(seed): \(typed)")
    }
  }
}
