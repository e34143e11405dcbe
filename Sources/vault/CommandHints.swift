import VaultCore

/// The hints that name vault's commands and flags: VaultCore words its errors without
/// them (it knows nothing of the command line), and the CLI adds them where it prints one.
extension VaultError {
  /// The error as `vault` prints it: its description, then the command that helps, if any.
  var messageWithHint: String {
    switch self {
    case .vaultNotFound: return description + " (create one with 'vault init')"
    case .damagedIndex: return description + " (run 'vault verify --repair' to rebuild it)"
    case .nothingSelected: return description + " (e.g. vault select 2 5-7)"
    case .offloadedElsewhere: return description + " (bring them back with 'vault keep --all' first)"
    case .offloadedOriginalsNameTheFolder:
      return description + " (bring them back with 'vault keep --all' first, then offload again)"
    default: return description
    }
  }
}
