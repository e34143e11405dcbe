import ArgumentParser
import VaultCore

struct DeleteCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "delete",
    abstract: "Delete photos (original and thumbnail) from the space.",
    discussion: """
      Asks for confirmation on a terminal; scripts must pass --yes. Photos are named as \
      'vault list' numbers them with the same --album, --since, --until and --sort, so \
      repeat the options of the listing you read the numbers from; --all with them deletes \
      only the photos they take.
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoiceOptions
  @OptionGroup var scope: ScopeOptions

  @Flag(name: .shortAndLong, help: "Delete without asking.")
  var yes = false

  func run() throws {
    let space = try options.unlock(.write)
    let browser = try scope.browser(for: space)
    let doomed = try browser.photos(chosenBy: try choice.choice, action: "deleting").map(\.photo)
    do {
      try confirm(doomed)
    } catch is DeclinedConfirmation {
      // Saying no is not an error.
      printLine("nothing deleted")
      return
    }
    // A signal from here on lets the index write and the unlinks finish (a second one
    // exits at once; the next writer removes what is left), and the command ends normally.
    SignalHandling.install()
    try browser.delete(doomed)
    // Left in the space, not only in the scope the photos were chosen from.
    printLine("deleted \(doomed.count) photo\(doomed.count == 1 ? "" : "s"); \(space.entries.count) left")
  }

  private func confirm(_ photos: [PhotoModel]) throws {
    if yes { return }
    let what = photos.count == 1 ? "'\(photos[0].record.name)'" : "\(photos.count) photos"
    // Chosen within an album, they still leave the whole space: say so, and what keeps them.
    let whole =
      scope.album.map { album in
        " from the space and every album (to take \(photos.count == 1 ? "it" : "them") out of '\(album)' only: vault album remove)"
      } ?? ""
    guard let answer = Terminal.confirm("Delete \(what)\(whole)? This cannot be undone.") else {
      throw VaultError.invalidArgument("not deleting without confirmation: pass --yes when not on a terminal")
    }
    if !answer { throw DeclinedConfirmation() }
  }
}

/// The user answered no.
private struct DeclinedConfirmation: Error {}
