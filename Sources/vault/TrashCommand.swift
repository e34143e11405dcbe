import ArgumentParser
import Foundation
import VaultCore
import VaultTerminal

struct TrashCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "trash",
    abstract: "List, restore and empty Recently Deleted, where 'vault delete' moves photos.",
    discussion: """
      'vault delete' moves photos to the space's Recently Deleted: encrypted as before, left \
      out of 'list', 'export --all', 'select', the viewer and the mount's Photos/ (the \
      mount shows them in Recently Deleted/). Past the space's retention (30 days unless \
      'vault trash retention' says otherwise) they show as due and still restore for \
      \(TrashRetention.graceDays) more days (time for a restore on a synced copy to arrive); \
      then the next command that changes the space deletes them for good and names each. \
      'vault trash empty' deletes them at once. Items are numbered in Recently Deleted's own \
      order, most recently deleted first; restore, retention and empty never delete an \
      expired item first.
      """,
    subcommands: [
      TrashListCommand.self, TrashRestoreCommand.self, TrashEmptyCommand.self, TrashRetentionCommand.self,
    ],
    defaultSubcommand: TrashListCommand.self)
}

struct TrashListCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list",
    abstract: "List Recently Deleted: number, name, when deleted, days left (the default).")

  @OptionGroup var options: VaultOptions

  func run() throws {
    let space = try options.unlock(.read)
    let items = space.catalog.trashItems
    guard !items.isEmpty else {
      printLine("Recently Deleted is empty")
      return
    }
    for line in TrashListing.lines(items, names: space.catalog.shownFileNames, now: .now()) {
      printLine(line)
    }
  }
}

struct TrashRestoreCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "restore",
    abstract: "Bring photos back from Recently Deleted, to their albums.",
    discussion: """
      Items are named by their numbers in 'vault trash' (e.g. 2 5-7, 1-3,9, 4-) or by id \
      (at least 6 hex digits, as 'vault list --json' showed them).
      """)

  @OptionGroup var options: VaultOptions

  @Argument(
    parsing: .allUnrecognized,
    help: ArgumentHelp("Items by number in 'vault trash', range or id.", valueName: "items"))
  var items: [String] = []

  @Flag(help: "Restore every item of Recently Deleted.")
  var all = false

  func validate() throws {
    if items.isEmpty == !all { throw ValidationError("Name items by number or id, or pass --all.") }
    try validatePhotoTerms(items)
  }

  func run() throws {
    // Numbers name what `vault trash` showed: nothing expires before the restore.
    let space = try options.unlock(.write, expiringTrash: false)
    let trash = space.catalog.trashItems
    if all && trash.isEmpty {
      printLine("Recently Deleted is empty")
      return
    }
    let chosen = try all ? trash : TrashListing.chosen(by: items, from: trash)
    SignalHandling.install()
    try space.restorePhotos(ids: Set(chosen.flatMap(\.files)))
    // A restored file keeps the name it showed in Recently Deleted.
    let names = space.catalog.shownFileNames
    for item in chosen { printLine("restored '\(names.item(item.photo))'") }
    printLine(
      "restored \(ItemCount(chosen.map(\.photo)).description); \(space.makeBrowser().count) in the space, "
        + "\(space.catalog.trashItems.count) in Recently Deleted")
  }
}

struct TrashEmptyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "empty",
    abstract: "Delete every item of Recently Deleted for good.",
    discussion: """
      Asks for confirmation on a terminal, naming the first \(DeletionText.namedInQuestion) items; \
      scripts must pass --yes. Only the items the question named are deleted (one deleted \
      meanwhile stays in Recently Deleted). Every item deleted is named after.
      """)

  @OptionGroup var options: VaultOptions

  @Flag(name: .shortAndLong, help: "Empty without asking.")
  var yes = false

  func run() throws {
    // As `delete`: a question left on screen holds no lock; exactly what it named goes.
    let space = try options.unlock(yes ? .write : .read, expiringTrash: false)
    let doomed = space.catalog.trashItems
    guard !doomed.isEmpty else {
      printLine("Recently Deleted is empty")
      return
    }
    // Named as 'vault trash' showed them, before the deletion frees the names.
    let names = space.catalog.shownFileNames
    if !yes {
      space.releaseLock()
      guard try confirm(doomed.map { names.item($0.photo) }, items: ItemCount(doomed.map(\.photo)))
      else {
        printLine("nothing deleted")
        return
      }
    }
    SignalHandling.install()
    let kept = try space.deleteTrashedForGood(ids: Set(doomed.flatMap(\.files)))
    let restored = doomed.filter { $0.files.allSatisfy(kept.contains) }
    let deleted = doomed.filter { !$0.files.allSatisfy(kept.contains) }
    for item in restored { printLine("'\(names.item(item.photo))' was restored meanwhile: kept") }
    // Nothing lists them after this: every one is named.
    DeletedNames.print(deleted.map { DeleteCommand.deletedLine($0.photo, names: names) }, rest: nil)
    printLine("deleted \(ItemCount(deleted.map(\.photo)).description) for good")
  }

  /// Asks, naming the first items; throws when there is no terminal to ask on.
  private func confirm(_ names: [String], items: ItemCount) throws -> Bool {
    let what = names.count == 1 ? "'\(names[0])'" : "the \(items.description) in Recently Deleted"
    let limit = DeletionText.namedInQuestion
    let details =
      names.prefix(limit).map { "  " + $0 }
      + (names.count > limit ? ["  … and \(names.count - limit) more"] : [])
    guard let answer = Terminal.confirm("Delete \(what) for good? This cannot be undone.", details: details)
    else {
      throw VaultError.invalidArgument("not emptying without confirmation: pass --yes when not on a terminal")
    }
    return answer
  }
}

struct TrashRetentionCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "retention",
    abstract: "Show or set how long Recently Deleted keeps photos.",
    discussion: """
      DAYS is \(TrashRetention.dayRange.lowerBound) to \(TrashRetention.dayRange.upperBound), or \
      'never' to keep them until 'vault trash empty'. The setting is the space's, kept in its \
      journal (synced copies take the latest); photos already there go by the new one, at \
      the next command that changes the space.
      """)

  @OptionGroup var options: VaultOptions

  @Argument(help: ArgumentHelp("Days to keep deleted photos, or 'never' (expire).", valueName: "days|never"))
  var days: String?

  func validate() throws { _ = try retention }

  private var retention: TrashRetention? {
    get throws {
      guard let days else { return nil }
      if days == "never" { return .never }
      guard let count = Int(days), let retention = TrashRetention(days: count) else {
        throw ValidationError(
          "'\(days)' is not a number of days from \(TrashRetention.dayRange.lowerBound) to "
            + "\(TrashRetention.dayRange.upperBound), nor 'never'.")
      }
      return retention
    }
  }

  func run() throws {
    guard let retention = try retention else {
      let space = try options.unlock(.read)
      printLine("Recently Deleted keeps photos \(TrashListing.keeps(space.catalog.trashRetention))")
      return
    }
    // Items already due under the old retention stay until the next command that changes
    // the space: this one names none of them.
    let space = try options.unlock(.write, expiringTrash: false)
    SignalHandling.install()
    try space.setTrashRetention(retention)
    printLine("Recently Deleted keeps photos \(TrashListing.keeps(retention)) from now on")
  }
}
