import Foundation

/// Where the decoder helper is: beside the running executable (a build, or an install into
/// one folder), else in `../libexec/vault/` relative to it (an install into a prefix).
enum DecoderExecutable {
  static let name = "vault-decoder"

  static func path() throws -> String {
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    let folder = (executable as NSString).deletingLastPathComponent
    let candidates = [
      (folder as NSString).appendingPathComponent(name),
      ((folder as NSString).appendingPathComponent("../libexec/vault/\(name)") as NSString).standardizingPath,
    ]
    guard let found = candidates.first(where: { access($0, X_OK) == 0 }) else {
      throw VaultError.io(
        path: candidates[0], reason: "the decoder helper is missing (vault needs it beside itself)")
    }
    return found
  }
}
