import Foundation
import VaultCore
import VaultTerminal

/// `vault backup --check`: runs the check and names each missing or damaged file, by photo
/// for the space a password (or session key) opens, by path otherwise.
struct BackupCheckReport {
  let location: RemoteLocation
  let options: VaultOptions
  let download: Bool

  func run() throws {
    let space = try options.spaceIfCredentialGiven()
    let names = space.map { FileNaming(space: $0) }
    let check = BackupCheck(remote: location, vault: options.resolvedVaultPath)
    let report = try check.run(
      download: download, authenticate: space.map { space in { space.authenticateCopy(of: $0, at: $1) } }
    ) {
      stage in
      if case .transferring(let progress) = stage { Diagnostics.progress(progress, label: "reading") }
    }
    Diagnostics.clearProgress()
    for finding in report.findings {
      let what = names?.name(of: finding.path) ?? finding.path
      if finding.isMissing {
        printLine("missing on '\(location)': \(what)")
      } else {
        printLine("damaged on '\(location)': \(what): \(finding.reason ?? "damaged")")
      }
    }
    printLine(summary(report))
    if !report.findings.isEmpty {
      throw BatchFailure(summary: "error: the backup on '\(location)' is not whole")
    }
  }

  private func summary(_ report: BackupCheck.Report) -> String {
    var line = "checked \(report.files) file\(report.files == 1 ? "" : "s") on '\(location)'"
    if download {
      line += " (read back and hashed"
      line += report.authenticated > 0 ? "; \(report.authenticated) photo files authenticated)" : ")"
    } else if report.bySizeOnly > 0 {
      line += " (\(report.bySizeOnly) by size only: the remote gives no MD5 for them; --download reads them)"
    } else {
      line += " by MD5"
    }
    let missing = report.findings.filter(\.isMissing).count
    let damaged = report.findings.count - missing
    if report.findings.isEmpty { return line + ": all whole" }
    return line + ": "
      + [missing > 0 ? "\(missing) missing" : nil, damaged > 0 ? "\(damaged) damaged" : nil]
      .compactMap { $0 }.joined(separator: ", ")
  }
}

/// Names a file of the backup by its photo: `12 'IMG_0042.HEIC' (id …) original`.
struct FileNaming {
  let space: Space
  let browser: PhotoBrowser

  init(space: Space) {
    self.space = space
    browser = space.makeBrowser()
  }

  /// Nil for a file that is not a blob of the opened space's listed photos.
  func name(of path: String) -> String? {
    let parts = path.split(separator: "/").map(String.init)
    guard parts.count == 3, parts[0] == space.tag, let id = BlobID(hex: parts[2]),
      let index = browser.index(of: id), let photo = browser.photo(at: index)
    else { return nil }
    let record = photo.motion?.id == id ? photo.motion! : photo.record
    let kind = parts[1] == "Photo" ? "original" : "thumbnail"
    return "\(index + 1) '\(browser.shownNames.of(record))' (id \(id.hex)) \(kind)"
  }
}
