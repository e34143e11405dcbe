import ArgumentParser
import VaultCore
import VaultTerminal

struct DeleteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete photos (original and thumbnail) from the space.",
    discussion: """
      Asks for confirmation on a terminal, naming the first \(DeletionText.namedInQuestion) \
      photos (number and name) and the albums they leave; scripts must pass --yes. \
      --dry-run lists every photo that would be deleted and deletes nothing. Photos are \
      named as 'vault list' numbers them with the same --album, --since, --until and \
      --sort, so repeat the options of the listing you read the numbers from; --all with \
      them deletes only the photos they take. Deleted photos are named (up to \
      \(DeletionText.namedInQuestion), or all with --verbose).
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoiceOptions
  @OptionGroup var scope: ScopeOptions

  @Flag(name: .shortAndLong, help: "Delete without asking.")
  var yes = false

  @Flag(help: "List the photos that would be deleted, and delete nothing.")
  var dryRun = false

  @Flag(name: .shortAndLong, help: "Name every deleted photo, however many.")
  var verbose = false

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
    if let only {
      try deleteHalves(only, of: doomed, in: space, browser: browser, asking: asking)
      return
    }
    let text = DeletionText(photos: doomed)
    let albumLine = text.albumLine { browser.album(named: $0)?.count ?? 0 }
    if dryRun {
      printLine("would delete:")
      for line in text.photoLines() { printLine(line) }
      if let albumLine { printLine(albumLine) }
      printLine("would delete \(photos(doomed.count))\(whole(doomed.count)); nothing deleted (--dry-run)")
      return
    }
    if asking { space.releaseLock() }
    do {
      try confirm(
        doomed.map(\.photo),
        details: text.photoLines(limit: DeletionText.namedInQuestion) + [albumLine].compactMap { $0 })
    } catch is DeclinedConfirmation {
      // Saying no is not an error.
      printLine("nothing deleted")
      return
    }
    // A signal from here on lets the index write and the unlinks finish (a second one
    // exits at once; the next writer removes what is left), and the command ends normally.
    SignalHandling.install()
    try browser.delete(doomed.map(\.photo))
    let named = verbose || doomed.count <= DeletionText.namedInQuestion
    if named {
      for item in doomed {
        guard let motion = item.photo.motion else {
          printLine("deleted '\(item.photo.record.name)'")
          continue
        }
        printLine("deleted live photo '\(item.photo.record.name)' + '\(motion.name)'")
      }
    }
    // Left in the space, not only in the scope the photos were chosen from.
    printLine(
      "deleted \(photos(doomed.count)); \(space.makeBrowser().count) left"
        + (named ? "" : " (--verbose names them)"))
  }

  /// `--only`: one half of each chosen Live Photo, named in the question and after; every
  /// chosen photo must be a Live Photo (else nothing is deleted).
  private func deleteHalves(
    _ half: LiveHalf, of doomed: [(index: Int, photo: PhotoModel)], in space: Space, browser: PhotoBrowser,
    asking: Bool
  ) throws {
    if let plain = doomed.first(where: { $0.photo.motion == nil }) {
      throw VaultError.invalidArgument(
        "photo \(plain.index + 1) '\(plain.photo.record.name)' is not a live photo: --only deletes a half of one; "
          + "nothing deleted")
    }
    let described = doomed.map { item in
      let (still, motion) = (item.photo.record.name, item.photo.motion!.name)
      let (gone, kept) = half == .motion ? (motion, still) : (still, motion)
      return "'\(gone)' (the \(half.rawValue) of live photo '\(still)'; '\(kept)' stays)"
    }
    let lines = zip(doomed, described).map { "  \($0.index + 1) \($1)" }
    if dryRun {
      printLine("would delete:")
      for line in lines { printLine(line) }
      printLine(
        "would delete \(doomed.count) live photo \(half.rawValue)\(doomed.count == 1 ? "" : "s"); nothing deleted (--dry-run)"
      )
      return
    }
    if asking { space.releaseLock() }
    do {
      try confirm(doomed.map(\.photo), details: Array(lines.prefix(DeletionText.namedInQuestion)), half: half)
    } catch is DeclinedConfirmation {
      printLine("nothing deleted")
      return
    }
    SignalHandling.install()
    try browser.delete(half, of: doomed.map(\.photo))
    for text in described.prefix(verbose ? described.count : DeletionText.namedInQuestion) {
      printLine("deleted " + text)
    }
    printLine(
      "deleted \(doomed.count) live photo \(half.rawValue)\(doomed.count == 1 ? "" : "s"); \(space.makeBrowser().count) left"
    )
  }

  /// " from the space and every album (…)" when the photos were chosen within an album:
  /// they still leave the whole space; says so, and what keeps them.
  private func whole(_ count: Int) -> String {
    scope.album.map { album in
      " from the space and every album (to take \(count == 1 ? "it" : "them") out of '\(album)' only: vault album remove)"
    } ?? ""
  }

  private func confirm(_ photos: [PhotoModel], details: [String], half: LiveHalf? = nil) throws {
    if yes { return }
    var what = photos.count == 1 ? "'\(photos[0].record.name)'" : "\(photos.count) photos"
    if let half { what = "the \(half.rawValue) of " + (photos.count == 1 ? "live photo " : "") + what }
    guard
      let answer = Terminal.confirm(
        "Delete \(what)\(whole(photos.count))? This cannot be undone.", details: details)
    else {
      throw VaultError.invalidArgument("not deleting without confirmation: pass --yes when not on a terminal")
    }
    if !answer { throw DeclinedConfirmation() }
  }
}

/// The user answered no.
private struct DeclinedConfirmation: Error {}

extension LiveHalf: ExpressibleByArgument {}
