import CSodium

/// The Argon2id parameters of a vault, stored in `vault.json`.
public struct KDFParameters: Equatable, Sendable {
  /// Argon2id passes (libsodium's opslimit).
  public var opsLimit: UInt64
  /// Argon2id memory in bytes (libsodium's memlimit).
  public var memLimit: UInt64
  /// The vault's random salt.
  public var salt: [UInt8]

  public static let saltLength = 16
  public static let algorithmName = "argon2id13"

  /// The named presets of `vault init --kdf`.
  public enum Preset: String, CaseIterable, Sendable {
    case interactive, moderate, sensitive

    public var opsLimit: UInt64 {
      switch self {
      case .interactive: return UInt64(crypto_pwhash_opslimit_interactive())
      case .moderate: return UInt64(crypto_pwhash_opslimit_moderate())
      case .sensitive: return UInt64(crypto_pwhash_opslimit_sensitive())
      }
    }

    public var memLimit: UInt64 {
      switch self {
      case .interactive: return UInt64(crypto_pwhash_memlimit_interactive())
      case .moderate: return UInt64(crypto_pwhash_memlimit_moderate())
      case .sensitive: return UInt64(crypto_pwhash_memlimit_sensitive())
      }
    }
  }

  /// The preset these limits are, if they are one.
  public var preset: Preset? {
    Preset.allCases.first { $0.opsLimit == opsLimit && $0.memLimit == memLimit }
  }

  /// Limits below `interactive` would make a copied vault cheap to attack; limits far above
  /// `sensitive` would let a forged header hang or exhaust the machine. Both are refused.
  public static let minimumOpsLimit = Preset.interactive.opsLimit
  public static let minimumMemLimit = Preset.interactive.memLimit
  public static let maximumOpsLimit = Preset.sensitive.opsLimit * 4
  public static let maximumMemLimit = Preset.sensitive.memLimit * 2

  public init(opsLimit: UInt64, memLimit: UInt64, salt: [UInt8]) throws {
    self.opsLimit = opsLimit
    self.memLimit = memLimit
    self.salt = salt
    try validate()
  }

  /// New parameters for a preset, with a fresh random salt.
  public init(preset: Preset) {
    Sodium.ensureInitialized()
    self.opsLimit = preset.opsLimit
    self.memLimit = preset.memLimit
    self.salt = Sodium.randomBytes(Self.saltLength)
  }

  /// Throws `.kdfOutOfBounds` unless the limits and salt are acceptable.
  public func validate() throws {
    guard salt.count == Self.saltLength else {
      throw VaultError.kdfOutOfBounds(reason: "salt must be \(Self.saltLength) bytes, not \(salt.count)")
    }
    guard opsLimit >= Self.minimumOpsLimit, opsLimit <= Self.maximumOpsLimit else {
      throw VaultError.kdfOutOfBounds(
        reason: "opslimit \(opsLimit) is outside \(Self.minimumOpsLimit)...\(Self.maximumOpsLimit)")
    }
    guard memLimit >= Self.minimumMemLimit, memLimit <= Self.maximumMemLimit else {
      throw VaultError.kdfOutOfBounds(
        reason: "memlimit \(memLimit) is outside \(Self.minimumMemLimit)...\(Self.maximumMemLimit)")
    }
  }

  /// Derives the 32-byte password key with Argon2id.
  public func deriveKey(from password: Password) throws -> SecureBytes {
    Sodium.ensureInitialized()
    try validate()
    let key = SecureBytes(count: 32)
    let passwordPointer = password.storage.pointer.assumingMemoryBound(to: CChar.self)
    let status = salt.withUnsafeBufferPointer { saltBuffer in
      crypto_pwhash(
        key.mutableBytes, 32, passwordPointer, UInt64(password.length), saltBuffer.baseAddress!,
        opsLimit, Int(memLimit), crypto_pwhash_ALG_ARGON2ID13)
    }
    guard status == 0 else {
      throw VaultError.kdfOutOfBounds(reason: "not enough memory for memlimit \(memLimit)")
    }
    return key
  }
}
