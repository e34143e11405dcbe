import ArgumentParser
import VaultCore
import VaultTerminal

struct DeleteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Move photos to Recently Deleted (or, with --now, delete them for good).",
    discussion: """
      Deleted photos go to the space's Recently Deleted, encrypted as before, where 'vault \
      trash' lists them and 'vault trash restore' brings them back (to their albums, \
      selected as they were) until they expire (after 30 days unless 'vault trash \
      retention' says otherwise) or 'vault trash empty' removes them. --now deletes them for \
      good at once. Asks for confirmation on a terminal, naming the first \
      \(DeletionText.namedInQuestion) photos (number and name) and the albums they leave; \
      scripts must pass --yes. --dry-run lists every photo that would be deleted and \
      deletes nothing. Photos are named as 'vault list' numbers them with the same --album, \
      --since, --until and --sort, so repeat the options of the listing you read the \
      numbers from; --all with them deletes only the photos they take. Every deleted photo \
      is named after: all of them when the output is not a terminal, else a screenful \
      (the rest are in 'vault trash').
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoiceOptions
  @OptionGroup var scope: ScopeOptions

  @Flag(name: .shortAndLong, help: "Delete without asking.")
  var yes = false

  @Flag(help: "List the photos that would be deleted, and delete nothing.")
  var dryRun = false

  @Flag(name: .shortAndLong, help: "Name every deleted photo, even past a screenful on a terminal.")
  var verbose = false

  @Flag(help: "Delete for good at once, without Recently Deleted.")
  var now = false

  @Option(
    help: ArgumentHelp(
      "Delete only this half of each chosen Live Photo: 'motion' (its MOV; the still stays, a photo) or "
        + "'still' (the MOV stays, a video).", valueName: "motion|still"))
  var only: LiveHalf?

  func run() throws {
    // With a question, opened to read: the photos are chosen and named under a shared
    // lock, which goes before the question, so that a question left on screen holds up
    // no other command (a writer waited for it, and `list` for ten minutes). The deletion
    // then takes the space to write and deletes by id exactly the photos the question
    // named. With --yes, opened to write at once, as any writer (waiting at most 10 s).
    let asking = !yes && !dryRun
    let space = try options.unlock(asking || dryRun ? .read : .write)
    let browser = try scope.browser(for: space)
    let doomed = try browser.photos(chosenBy: try choice.choice, action: "deleting")
    // Named as 'vault list' showed them, before the deletion.
    let names = browser.shownNames(of: doomed.map(\.photo))
    if let only {
      try deleteHalves(only, of: doomed, in: space, browser: browser, names: names, asking: asking)
      return
    }
    let text = DeletionText(photos: doomed, names: names)
    let albumLine = text.albumLine { browser.album(named: $0)?.count ?? 0 }
    if dryRun {
      printLine("would delete:")
      for line in text.photoLines() { printLine(line) }
      if let albumLine { printLine(albumLine) }
      let items = ItemCount(doomed.map(\.photo)).description
      printLine(
        "would \(now ? "delete \(items) for good" : "move \(items) to Recently Deleted")"
          + "\(whole(doomed.count)); nothing deleted (--dry-run)")
      return
    }
    if asking { space.releaseLock() }
    do {
      try confirm(
        doomed.map(\.photo), in: space, names: names,
        details: text.photoLines(limit: DeletionText.namedInQuestion) + [albumLine].compactMap { $0 })
    } catch is DeclinedConfirmation {
      // Saying no is not an error.
      printLine("nothing deleted")
      return
    }
    // A signal from here on lets the index write and the unlinks finish (a second one
    // exits at once; the next writer removes what is left), and the command ends normally.
    SignalHandling.install()
    try browser.delete(doomed.map(\.photo), forGood: now)
    ExpiredNames.warn(space)
    reportDeleted(
      doomed.map { Self.deletedLine($0.photo, names: names) }, items: ItemCount(doomed.map(\.photo)),
      left: space.makeBrowser().count, in: space)
  }

  /// Names every deleted item (a screenful on a terminal: the rest are in the trash; all of
  /// them when deleted for good, which nothing else will list again), then how many went
  /// where (counted as `list` counts items), and how many are left in the space (not only
  /// in the scope they were chosen from).
  private func reportDeleted(_ lines: [String], items: ItemCount, left: Int, in space: Space) {
    DeletedNames.print(lines, rest: restOfNames)
    guard !now else {
      printLine("deleted \(items.description) for good; \(left) left")
      return
    }
    printLine("moved \(items.description) to Recently Deleted (\(kept(space))); \(left) left")
  }

  /// "deleted 'IMG_1.jpg'", "deleted live photo 'IMG_2.HEIC' + 'IMG_2.MOV'", each file by
  /// the name it showed under (`names`).
  static func deletedLine(_ photo: PhotoModel, names: ShownFileNames) -> String {
    guard let motion = photo.motion else { return "deleted '\(names.of(photo.record))'" }
    return "deleted live photo '\(names.of(photo.record))' + '\(names.of(motion))'"
  }

  /// What a terminal shows past a screenful of deleted names: where the rest are (nil, all
  /// named, when they were deleted for good or --verbose asks for every one).
  private var restOfNames: ((Int) -> String)? {
    now || verbose ? nil : { "… and \($0) more (vault trash lists them)" }
  }

  /// "kept 30 days", or "kept until emptied".
  private func kept(_ space: Space) -> String { "kept \(space.catalog.trashRetention)" }

  /// `--only`: one half of each chosen Live Photo, named in the question and after; every
  /// chosen photo must be a Live Photo (else nothing is deleted).
  private func deleteHalves(
    _ half: LiveHalf, of doomed: [(index: Int, photo: PhotoModel)], in space: Space, browser: PhotoBrowser,
    names: ShownFileNames, asking: Bool
  ) throws {
    try browser.requireLivePhotos(doomed)
    let text = LiveHalfDeletionText(half: half, photos: doomed, names: names)
    if dryRun {
      printLine("would delete:")
      for line in text.lines { printLine(line) }
      printLine("would delete \(text.count); nothing deleted (--dry-run)")
      return
    }
    if asking { space.releaseLock() }
    do {
      try confirm(
        doomed.map(\.photo), in: space, names: names,
        details: Array(text.lines.prefix(DeletionText.namedInQuestion)),
        half: half)
    } catch is DeclinedConfirmation {
      printLine("nothing deleted")
      return
    }
    SignalHandling.install()
    try browser.delete(half, of: doomed, forGood: now)
    ExpiredNames.warn(space)
    DeletedNames.print(
      text.described.map { "deleted " + $0 },
      rest: restOfNames)
    let left = space.makeBrowser().count
    printLine(
      now
        ? "deleted \(text.count) for good; \(left) left"
        : "moved \(text.count) to Recently Deleted (\(kept(space))); \(left) left")
  }

  /// " from the space and every album (…)" when the photos were chosen within an album:
  /// they still leave the whole space; says so, and what keeps them.
  private func whole(_ count: Int) -> String {
    scope.album.map { album in
      " from the space and every album (to take \(count == 1 ? "it" : "them") out of '\(album)' only: vault album remove)"
    } ?? ""
  }

  private func confirm(
    _ photos: [PhotoModel], in space: Space, names: ShownFileNames, details: [String], half: LiveHalf? = nil
  ) throws {
    if yes { return }
    var what = photos.count == 1 ? "'\(names.of(photos[0].record))'" : ItemCount(photos).description
    if let half { what = "the \(half.rawValue) of " + (photos.count == 1 ? "live photo " : "") + what }
    let question =
      now
      ? "Delete \(what)\(whole(photos.count)) for good? This cannot be undone."
      : "Move \(what)\(whole(photos.count)) to Recently Deleted (\(kept(space)))?"
    guard let answer = Terminal.confirm(question, details: details) else {
      throw VaultError.invalidArgument("not deleting without confirmation: pass --yes when not on a terminal")
    }
    if !answer { throw DeclinedConfirmation() }
  }
}

/// The user answered no.
private struct DeclinedConfirmation: Error {}

extension LiveHalf: ExpressibleByArgument {}
