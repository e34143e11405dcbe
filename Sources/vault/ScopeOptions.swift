import ArgumentParser
import Foundation
import VaultCore

extension PhotoSort: ExpressibleByArgument {}

/// Which photos a command sees and in what order: an album, a span of dates, a sort.
/// Shared by list, show, view, select, unselect, delete, export and album add, so that a
/// photo's number is the same in each of them given the same options.
struct ScopeOptions: ParsableArguments {
  @Option(help: ArgumentHelp("Only the photos of this album.", valueName: "name"))
  var album: String?

  @Option(
    help: ArgumentHelp(
      "Only photos taken (else imported) from DATE on: YYYY-MM-DD or YYYY-MM-DDTHH:MM[:SS], local time.",
      valueName: "date"))
  var since: String?

  @Option(
    help: ArgumentHelp(
      "Only photos taken (else imported) up to the end of DATE (a day: the whole day).", valueName: "date"))
  var until: String?

  @Option(
    help: ArgumentHelp(
      "Order and number the photos by date taken (else imported), import order, name, or size.",
      valueName: "order"))
  var sort: PhotoSort = .taken

  func validate() throws {
    do {
      let scope = try self.scope
      if let since = scope.since, let until = scope.until, since.start >= until.end {
        throw ValidationError(
          "--since \(self.since!) is not before the end of --until \(self.until!): no photo can be in between."
        )
      }
    } catch let error as VaultError {
      throw ValidationError(error.description)
    }
  }

  /// The scope, parsed (the album is checked against the space by `browser`).
  var scope: PhotoScope {
    get throws {
      PhotoScope(
        album: try album.map(AlbumName.normalized), since: try since.map { try DatePeriod(parsing: $0) },
        until: try until.map { try DatePeriod(parsing: $0) }, sort: sort)
    }
  }

  /// The space's browser for this scope; throws `.noSuchAlbum` for an album the space does
  /// not have.
  func browser(for space: Space, perRow: Int = 1) throws -> PhotoBrowser {
    let scope = try self.scope
    let browser = space.makeBrowser(perRow: perRow, scope: scope)
    if let album = scope.album { _ = try browser.requireAlbum(named: album) }
    browser.scopeDescription = described
    return browser
  }
}

/// Refuses an album name that no album can have, before the password is asked for.
func validateAlbumName(_ name: String) throws -> String {
  do {
    return try AlbumName.normalized(name)
  } catch let error as VaultError {
    throw ValidationError(error.description)
  }
}

extension ScopeOptions {
  /// " in album 'Trip' from 2024-06-01 to 2024-06-30", or "" for the whole space: what the
  /// options took, for messages about the photos they leave.
  var described: String {
    var text = ""
    if let album { text += " in album '\((try? AlbumName.normalized(album)) ?? album)'" }
    if let since { text += " from \(since)" }
    if let until { text += " to \(until)" }
    return text
  }
}
