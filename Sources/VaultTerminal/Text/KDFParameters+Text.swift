import VaultCore

extension KDFParameters {
  /// "argon2id13, moderate (opslimit 3, memlimit 256 MiB)", as `vault info` says it.
  public var described: String {
    "\(Self.algorithmName), \(preset?.rawValue ?? "custom") (opslimit \(opsLimit), memlimit \(memLimit >> 20) MiB)"
  }
}
