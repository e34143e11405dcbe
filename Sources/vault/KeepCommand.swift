import ArgumentParser
import VaultCore
import VaultTerminal

struct KeepCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "keep",
    abstract: "Bring offloaded originals back to this disk.",
    discussion: """
      Downloads each chosen photo's original from the remote 'vault offload' sent it to, \
      checks every byte of it, and puts it back in the vault folder; the photo is then read \
      from the disk again. Photos whose original is here already are left alone. Photos are \
      named as 'vault list' numbers them with the same --album, --since, --until and --sort.

      Examples:
        vault keep 12 14-16
        vault keep --all
      """)

  @OptionGroup var options: VaultOptions
  @OptionGroup var choice: PhotoChoiceOptions
  @OptionGroup var scope: ScopeOptions

  func run() throws {
    let space = try options.unlock(.write)
    let browser = try scope.browser(for: space)
    let photos = try browser.photos(chosenBy: try choice.choice, action: "keeping").map(\.photo)
    let outcome = space.keep(photos.flatMap(\.records)) { Diagnostics.progress($0, label: "fetching") }
    Diagnostics.clearProgress()
    let names = browser.shownNames
    for record in outcome.kept { printLine("kept '\(names.of(record))'") }
    for (record, error) in outcome.failed {
      Diagnostics.error("'\(names.of(record))' not brought back: \(error)")
    }
    let already = outcome.alreadyLocal.count
    printLine(
      "brought back \(Self.files(outcome.kept.count))"
        + (already > 0 ? "; \(Self.files(already)) here already" : ""))
    if !outcome.failed.isEmpty {
      throw BatchFailure(summary: "error: \(Self.files(outcome.failed.count)) could not be brought back")
    }
  }

  /// "1 original", "3 originals".
  static func files(_ count: Int) -> String { "\(count) original\(count == 1 ? "" : "s")" }
}
