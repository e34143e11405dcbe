/// A command stopped early at a signal, after committing what it had done; `summary` is
/// the `interrupted: …` line. The command exits with status 130.
struct CommandInterrupted: Error {
  let summary: String

  /// `interrupted: 3 of 20 exported; run the same command again to continue`
  init(done: Int, of total: Int, _ verb: String) {
    summary = "interrupted: \(done) of \(total) \(verb); run the same command again to continue"
  }

  init(summary: String) {
    self.summary = summary
  }
}
