import ArgumentParser
import VaultCore
import VaultTerminal

struct InfoCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "info",
    abstract: "Describe the vault and the unlocked space.",
    discussion: """
      Prints the vault's format and key derivation, then the space's photos, bytes and albums, how \
      many are in Recently Deleted, and \
      whether a session key ('vault unlock') opened it, and until when. With --no-password, \
      only what anyone with the vault folder can read (format and key derivation): never \
      how many spaces there are.
      """)

  @OptionGroup var options: VaultOptions

  @Flag(help: "Print only what needs no password: the vault's format and key derivation.")
  var noPassword = false

  func validate() throws {
    if noPassword && options.passwordFile != nil {
      throw ValidationError("Use only one of --no-password and --password-file.")
    }
  }

  func run() throws {
    let vault = try options.openVault()
    printLine("vault:           \(vault.path)")
    printLine("format:          vault.json version \(vault.headerVersion)")
    printLine("key derivation:  \(vault.kdf.described)")
    if noPassword { return }

    var credential = try options.credential(for: vault)
    let space = try options.unlock(vault, with: &credential, access: .read)
    try space.requireIndex()
    let browser = space.makeBrowser()
    let summary = browser.summary()
    printLine("space format:    \(space.formatVersion)")
    printLine("photos:          \(summary.photos) (\(summary.selected) selected)")
    printLine("originals:       \(PhotoListing.byteCount(summary.originalBytes))")
    printLine(
      "stored:          \(PhotoListing.byteCount(summary.storedBytes)) (originals and thumbnails, encrypted and padded)"
    )
    // Not in `stored`: their originals are on the remote.
    let offloaded = space.remoteOriginals().count
    if offloaded > 0, let remote = space.offloadRemote {
      printLine(
        "offloaded:       \(offloaded) original\(offloaded == 1 ? "" : "s") on '\(RemoteRedaction.redacted(remote))' ('vault keep' brings them back)"
      )
    }
    let albums = browser.albums.count
    printLine("albums:          \(albums == 0 ? "none" : String(albums))")
    // Their files still take room, apart from the bytes counted above.
    let trashed = space.catalog.trashItems.count
    if trashed > 0 {
      printLine(
        "recently deleted: \(photos(trashed)), kept \(space.catalog.trashRetention) ('vault trash' lists them)"
      )
    }
    switch credential {
    case .sessionKey(let key):
      printLine("session key:     in use, \(SessionKeyText.lifetime(of: key))")
    case .password:
      // A given password may open another space than the session key's.
      if case .found(let key) = SessionKeyring.lookUp(for: vault, refresh: false), key.spaceTag == space.tag {
        printLine(
          "session key:     kept for this space (not used: a password was given), \(SessionKeyText.lifetime(of: key))"
        )
      } else {
        printLine("session key:     none for this space")
      }
    }
  }
}
