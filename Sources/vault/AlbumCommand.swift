import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct AlbumCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "album",
    abstract: "Make, rename and delete albums, and put photos in them or take them out.",
    discussion: """
      An album is a name and a set of photos of the space; a photo may be in several \
      albums, and deleting an album leaves its photos in the space. Albums are kept, \
      encrypted, in the space's journal (synced copies merge them; albums of one name made \
      apart in two copies show as one). A name has 1 to \(AlbumName.maximumLength) \
      characters, no control characters, no '/' and no space at either end. 'vault list \
      --album NAME' lists an album's photos, numbered within it.
      """,
    subcommands: [
      AlbumNewCommand.self, AlbumRenameCommand.self, AlbumDeleteCommand.self, AlbumAddCommand.self,
      AlbumRemoveCommand.self, AlbumListCommand.self,
    ])
}

struct AlbumNewCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "new", abstract: "Make an empty album.")

  @OptionGroup var options: VaultOptions

  @Argument(help: "The album's name.")
  var name: String

  func validate() throws { _ = try validateAlbumName(name) }

  func run() throws {
    let album = try AlbumName.normalized(name)
    let space = try options.unlock(.write)
    SignalHandling.install()
    try space.makeBrowser().createAlbum(named: album)
    printLine("made album '\(album)'")
  }
}

struct AlbumRenameCommand: ParsableCommand {
  static let configuration = CommandConfiguration(commandName: "rename", abstract: "Rename an album.")

  @OptionGroup var options: VaultOptions

  @Argument(help: "The album's name.")
  var name: String

  @Argument(help: "Its new name.")
  var newName: String

  func validate() throws {
    _ = try validateAlbumName(name)
    _ = try validateAlbumName(newName)
  }

  func run() throws {
    let (old, new) = (try AlbumName.normalized(name), try AlbumName.normalized(newName))
    let space = try options.unlock(.write)
    SignalHandling.install()
    let was = try space.makeBrowser().renameAlbum(old, to: new)
    printLine("renamed album '\(was)' to '\(new)'")
  }
}

struct AlbumDeleteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete", abstract: "Delete an album; its photos stay in the space.")

  @OptionGroup var options: VaultOptions

  @Argument(help: "The album's name.")
  var name: String

  func validate() throws { _ = try validateAlbumName(name) }

  func run() throws {
    let album = try AlbumName.normalized(name)
    let space = try options.unlock(.write)
    SignalHandling.install()
    let deleted = try space.makeBrowser().deleteAlbum(named: album)
    printLine(
      "deleted album '\(deleted.name)'; its \(photos(deleted.count)) \(deleted.count == 1 ? "stays" : "stay") in the space"
    )
  }
}

struct AlbumAddCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add", abstract: "Put photos in an album.",
    discussion: """
      Photos are named as 'vault list' numbers them with the same --album, --since, \
      --until and --sort (by default, every photo by date taken). The album must exist \
      ('vault album new NAME' makes it), so that a typo makes no album.
      """)

  @OptionGroup var options: VaultOptions

  @Argument(help: "The album's name.")
  var name: String

  @OptionGroup var choice: PhotoChoiceOptions
  @OptionGroup var scope: ScopeOptions

  func validate() throws { _ = try validateAlbumName(name) }

  func run() throws {
    let album = try AlbumName.normalized(name)
    let space = try options.unlock(.write)
    let name = try space.makeBrowser().requireAlbum(named: album).name
    let browser = try scope.browser(for: space)
    let chosen = try browser.photos(chosenBy: try choice.choice, action: "adding to an album")
    SignalHandling.install()
    let addition = try browser.addToAlbum(name, chosen.map(\.photo), creating: false)
    let already = chosen.count - addition.added
    printLine(
      "added \(photos(addition.added)) to album '\(name)'"
        + (already > 0 ? " (\(already) \(already == 1 ? "was" : "were") in it already)" : "")
        + "; it holds \(browser.album(named: name)?.count ?? 0)")
  }
}

struct AlbumRemoveCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove", abstract: "Take photos out of an album; they stay in the space.",
    discussion: """
      Photos are named as 'vault list --album NAME' numbers them (with the same --since, \
      --until and --sort): numbers count within the album.
      """)

  @OptionGroup var options: VaultOptions

  @Argument(help: "The album's name.")
  var name: String

  @OptionGroup var choice: PhotoChoiceOptions
  @OptionGroup var scope: ScopeOptions

  func validate() throws {
    _ = try validateAlbumName(name)
    if scope.album != nil { throw ValidationError("The album is \(name) already; leave out --album.") }
  }

  func run() throws {
    let album = try AlbumName.normalized(name)
    let space = try options.unlock(.write)
    let name = try space.makeBrowser().requireAlbum(named: album).name
    var albumScope = try scope.scope
    albumScope.album = name
    let browser = space.makeBrowser(scope: albumScope)
    let chosen = try browser.photos(chosenBy: try choice.choice, action: "removing from an album")
    SignalHandling.install()
    let removed = try browser.removeFromAlbum(name, chosen.map(\.photo))
    printLine(
      "removed \(photos(removed)) from album '\(name)'; it holds \(browser.album(named: name)?.count ?? 0)")
  }
}

struct AlbumListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the albums: name, number of photos, newest photo.",
    discussion: "The newest photo is the one taken last (else imported last).")

  @OptionGroup var options: VaultOptions

  @Flag(help: "Print one JSON array for scripts.")
  var json = false

  func run() throws {
    let space = try options.unlock(.read)
    let browser = space.makeBrowser()
    let summaries = browser.albumSummaries()
    if json {
      printRaw(try AlbumListing.json(summaries, names: browser.shownNames))
      return
    }
    if summaries.isEmpty {
      printLine("no albums in this space")
      Diagnostics.hint(
        "make one with 'vault album new NAME', or import into one with 'vault add --album NAME PATH'")
      return
    }
    for line in AlbumListing.table(summaries, names: browser.shownNames, columns: Terminal.columns) {
      printLine(line)
    }
  }
}
