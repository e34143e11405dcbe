import ArgumentParser
import VaultCore
import VaultTerminal

struct VerifyCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Check every photo of the space; with --repair, fix what can be fixed.",
    discussion: """
      Authenticates every original and thumbnail and the index, and reports each photo: \
      ok, damaged, missing thumbnail, orphan, leftover temporary file. Exit status 0 only \
      when everything is intact. --repair rebuilds a damaged index from the records inside \
      the originals (the selection is then lost), remakes missing or damaged thumbnails, \
      adopts intact orphan originals and removes temporary files. It never deletes a \
      damaged original. It also reads the date taken and camera of photos imported before \
      vault read them (from the originals it reads anyway). --repair asks for the password \
      even while the space is unlocked ('vault unlock'). Photos are numbered as 'vault list' \
      numbers them (every photo, by date taken).

      --quick checks the index and, for each photo, that its original and thumbnail are \
      there and that their headers and first chunk authenticate (the original's record \
      matching the index), without reading whole originals: it skips the rest of each \
      original, so damage further inside a photo is found only without --quick.

      Offloaded originals are checked on their remote. When it cannot be reached, verify \
      says how many it could not check and exits non-zero: they are not known intact, nor \
      damaged.
      """)

  @OptionGroup var options: VaultOptions

  @OptionGroup var decoder: DecoderOptions

  @Flag(help: "Repair what can be repaired without guessing.")
  var repair = false

  @Flag(help: "Check only the index and each photo's blob headers and first chunk (fast for big spaces).")
  var quick = false

  @Flag(name: .shortAndLong, help: "Print only problems and the summary.")
  var quiet = false

  func validate() throws {
    if quick && repair {
      throw ValidationError("--quick cannot be used with --repair: a repair needs every photo read through.")
    }
  }

  func run() throws {
    // A repair rewrites the index under the key that opened the space: only the password
    // says for sure which space and key that is.
    let space = try options.unlock(repair ? .write : .read, allowDamagedIndex: true, allowSessionKey: !repair)
    let verifier = SpaceVerifier(space: space, decoderLimits: decoder.limits)
    let progress: (Int, Int) -> Void = { done, total in
      Diagnostics.progress(done: done, total: total, label: "checking")
    }
    let journalLost = repair ? try runRepair(verifier, of: space, progress: progress) : false
    let findings = verifier.verify(depth: quick ? .quick : .full, progress: progress)
    Diagnostics.clearProgress()
    for finding in findings where !finding.isUnchecked && (!quiet || finding.isProblem) {
      printLine(finding.description)
    }
    let uncheckedLines = Self.uncheckedLines(findings)
    let uncheckedCount = findings.filter(\.isUnchecked).count
    let problems = findings.filter(\.isProblem).count - uncheckedCount
    let browser = space.makeBrowser()
    // Counted as `add` and `list` count: a video is not called a photo, a Live Photo is one item.
    let items = ItemCount(browser.listed(selectedOnly: false, from: nil, count: nil).map(\.photo))
    let notChecked =
      uncheckedCount > 0
      ? "\(uncheckedCount) offloaded original\(uncheckedCount == 1 ? "" : "s") not checked" : nil
    let status =
      problems > 0
      ? "\(problems) problem\(problems == 1 ? "" : "s")" + (notChecked.map { ", \($0)" } ?? "")
      : notChecked
        ?? (journalLost
          ? "the originals are intact, but the space was rebuilt without its journal" : "all intact")
    let trashed = space.catalog.trashItems.count
    printLine(
      "\(items.description)\(trashed > 0 ? " and \(trashed) in Recently Deleted" : "") "
        + "checked\(quick ? " quickly (headers only)" : ""): " + status)
    if problems > 0 {
      uncheckedLines.forEach(Diagnostics.emit)
      if !repair, findings.contains(where: \.isRepairable) {
        Diagnostics.hint("'vault verify --repair' fixes what can be fixed without guessing")
      }
      if findings.contains(where: \.isLostBlob) {
        Diagnostics.hint(
          "a backup brings back missing and damaged originals and thumbnails: 'vault restore REMOTE --missing'"
        )
      }
      // By id and name, never by number alone: numbers move when photos are added or dated,
      // and a hint that deletes must not land on another photo.
      for case .damagedOriginal(let number?, let name, let id, _) in findings {
        Diagnostics.hint(damagedOriginalHint(number: number, name: name ?? "?", id: id, in: browser))
      }
      throw BatchFailure(summary: "error: the space is not intact")
    }
    // Not known intact: not a success either.
    if !uncheckedLines.isEmpty { throw BatchFailure(summary: uncheckedLines.joined(separator: "\n")) }
    if journalLost {
      throw BatchFailure(summary: "error: the space was rebuilt from its originals and is not as it was")
    }
  }

  /// `--repair`: repairs what can be repaired and reports it; whether the space's journal
  /// was lost (rebuilt from the originals). Throws when interrupted.
  private func runRepair(
    _ verifier: SpaceVerifier, of space: Space, progress: (Int, Int) -> Void
  ) throws -> Bool {
    SignalHandling.install()
    let summary = try verifier.repair(progress: progress, interruption: SignalHandling.interruption)
    Diagnostics.clearProgress()
    report(summary, in: space.makeBrowser())
    switch summary.interruption {
    case .checking(let done, let total)?:
      throw CommandInterrupted(
        summary: "interrupted: \(done) of \(total) photos checked, nothing repaired; "
          + "run the same command again to continue")
    case .remakingThumbnails(let done, let total)?:
      throw CommandInterrupted(done: done, of: total, "thumbnails remade")
    case nil: return summary.journalLost
    }
  }

  /// Offloaded originals a remote could not be asked about: one line a reason, not one a
  /// photo, and never called damaged (their only copy may well be intact there).
  private static func uncheckedLines(_ findings: [VerifyFinding]) -> [String] {
    var unchecked: [String: Int] = [:]
    for case .uncheckedOriginal(_, _, _, let reason) in findings { unchecked[reason, default: 0] += 1 }
    return unchecked.sorted { $0.key < $1.key }.map { reason, count in
      "error: could not check \(count) offloaded original\(count == 1 ? "" : "s"): \(reason)"
    }
  }

  /// What to do about a damaged original. A Live Photo's damaged half is removed alone:
  /// `delete` by its id would take the whole item, the intact half with it.
  /// Each file is named as 'vault list' and an export name it: `name` is the one the
  /// finding gave (`SpaceVerifier` names files so), the Live Photo's other half is looked up.
  private func damagedOriginalHint(number: Int, name: String, id: String, in listed: PhotoBrowser)
    -> String
  {
    if name.hasSuffix(VerifyFinding.trashSuffix) {
      return "restore '\(name.dropLast(VerifyFinding.trashSuffix.count))' (item \(number) of 'vault trash', "
        + "id \(id)) from a backup; in Recently Deleted it goes for good when it expires or the trash is emptied"
    }
    if let others = otherImportsText(of: id, in: listed) {
      return "restore '\(name)' (photo \(number), id \(id)) from a backup or from another copy of the vault: "
        + others
    }
    guard let blob = BlobID(hex: id), let (still, motion, half) = listed.livePhoto(containing: blob) else {
      return
        "restore '\(name)' (photo \(number), id \(id)) from a backup, or remove it with 'vault delete --now \(id)'"
    }
    let names = listed.shownNames
    let kept =
      half == .motion ? "'\(names.of(still))' stays, a photo" : "'\(names.of(motion))' stays, a video"
    return "restore '\(name)' (the \(half.rawValue) of live photo \(number) '\(names.of(still))', id \(id)) "
      + "from a backup, or remove it alone with 'vault delete --now --only \(half.rawValue) \(id)' (\(kept))"
  }

  /// For a photo imported on several copies apart (one item, see docs/SYNC.md): why `delete`
  /// is not the way to remove one damaged or missing import, since it takes every import,
  /// the intact ones with it. Nil for a photo imported once.
  private func otherImportsText(of id: String, in browser: PhotoBrowser) -> String? {
    guard let others = BlobID(hex: id).map(browser.otherImports(of:)), !others.isEmpty else { return nil }
    return
      "the same photo was imported on another copy too (id \(others.map(\.hex).joined(separator: ", id "))), "
      + "and 'vault delete' would remove every import of it"
  }

  private func report(_ summary: RepairSummary, in browser: PhotoBrowser) {
    if summary.journalLost {
      printLine("repaired: made a new journal listing the \(summary.rebuiltCount) intact originals")
      Diagnostics.warning(
        "the space's Journal folder was gone: its albums, its selection and its deletions could not be "
          + "recovered (a deleted photo whose original was left is listed again), so the space is not as it was; "
          + "if a backup holds its Journal folder, that is the space as it was")
    } else if summary.indexRebuilt {
      printLine("repaired: rebuilt the index from the \(summary.rebuiltCount) intact originals")
      // Albums made or changed in the damaged part are gone with it (a new-user tryout lost
      // one under a warning that named only the selection).
      Diagnostics.warning(
        "the selection was cleared, and albums made or changed in the damaged part of the index are lost "
          + "(see 'vault album list'): the damaged part may have changed them")
    }
    if !summary.restoredFromTrash.isEmpty {
      let count = summary.restoredFromTrash.count
      Diagnostics.warning(
        "restored \(count) item\(count == 1 ? "" : "s") from Recently Deleted ("
          + summary.restoredFromTrash.map { "'\($0)'" }.joined(separator: ", ")
          + "): a damaged record may have restored \(count == 1 ? "it" : "them"); delete "
          + "\(count == 1 ? "it" : "them") again if \(count == 1 ? "it" : "they") should go")
    }
    for name in summary.adopted {
      printLine("repaired: adopted '\(name)' (an intact original the index did not list)")
    }
    for name in summary.droppedMissing {
      printLine("repaired: removed '\(name)' from the index (its original is gone)")
    }
    // By id, never by number: numbers move, and this hint leads to a deletion.
    let names = browser.shownNames
    for record in summary.keptMissing {
      if let others = otherImportsText(of: record.id.hex, in: browser) {
        printLine(
          "not repaired: '\(names.of(record))' (id \(record.id)) is still listed without its original (a sync may "
            + "still bring it): " + others)
        continue
      }
      printLine(
        "not repaired: '\(names.of(record))' (id \(record.id)) is still listed without its original (a sync may "
          + "still bring it; if it is gone for good, remove it with 'vault delete --now \(record.id)')")
    }
    if summary.duplicatesDropped > 0 {
      printLine("repaired: removed \(summary.duplicatesDropped) duplicate index entries")
    }
    for name in summary.thumbnailsRemade { printLine("repaired: remade the thumbnail of '\(name)'") }
    for text in summary.thumbnailsNotRemade { Diagnostics.error("cannot remake the thumbnail of \(text)") }
    for path in summary.removedFiles { printLine("repaired: removed \(path)") }
    if summary.detailsRead > 0 {
      let count = summary.detailsRead
      printLine(
        "filled in: read the date taken and camera of \(count) photo" + (count == 1 ? "" : "s") + " imported "
          + "before vault read them (\(summary.datesFound) give a date)")
    }
    for name in summary.damagedOriginals {
      // What else can be done (and how, for a Live Photo's half) follows, photo by photo.
      Diagnostics.warning("left the damaged original \(name) in place; restore it from a backup")
    }
  }
}
