import Foundation

/// The files an import was given, with folders expanded.
public struct CollectedFiles: Sendable {
  /// Files to import, in order.
  public var files: [String] = []
  /// Named paths that cannot be read.
  public var failures: [ImportEvent] = []
  /// Files found in folders whose names are not UTF-8: failed items of the import (the
  /// folder's other files are imported), named with their invalid bytes escaped.
  public var undecodableNames: [ImportEvent] = []
  /// The files found by walking a folder (not named one by one): those that are not
  /// photos are skipped rather than failed.
  public var foundInFolders: Set<String> = []
}

extension PhotoImporter {
  /// Expands folders (recursively, skipping hidden entries and not following linked
  /// folders) into a sorted list of files; paths that cannot be read come back as failures.
  public static func collectFiles(_ paths: [String]) -> CollectedFiles {
    var collected = CollectedFiles()
    var seen = Set<String>()
    func add(_ path: String, found: Bool) {
      // The same file reached twice (`card` and `./card/b`, or a hard link) is imported
      // once: by --move, a second time would find it gone.
      var info = stat()
      let key =
        stat(path, &info) == 0 ? "\(info.st_dev):\(info.st_ino)" : (path as NSString).standardizingPath
      guard seen.insert(key).inserted else { return }
      collected.files.append(path)
      if found { collected.foundInFolders.insert(path) }
    }
    func walk(_ folder: String) {
      let listing: FolderNames
      do {
        listing = try FolderNames(folder: folder)
      } catch {
        collected.failures.append(.failed(path: folder, error: .posix(folder)))
        return
      }
      func inFolder(_ name: String) -> String { folder.hasSuffix("/") ? folder + name : folder + "/" + name }
      for name in listing.undecodable.sorted() where !name.hasPrefix(".") {
        collected.undecodableNames.append(
          .failed(path: inFolder(name), error: .io(path: inFolder(name), reason: Self.undecodableName)))
      }
      for name in listing.names.sorted() where !name.hasPrefix(".") {
        let path = inFolder(name)
        var info = stat()
        guard lstat(path, &info) == 0 else { continue }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: walk(path)
        case S_IFREG: add(path, found: true)
        case S_IFLNK:
          var target = stat()
          if stat(path, &target) == 0 && (target.st_mode & S_IFMT) == S_IFREG { add(path, found: true) }
        default: continue
        }
      }
    }
    for path in paths {
      var info = stat()
      guard stat(path, &info) == 0 else {
        collected.failures.append(.failed(path: path, error: .posix(path)))
        continue
      }
      switch info.st_mode & S_IFMT {
      case S_IFDIR: walk(path)
      case S_IFREG: add(path, found: false)
      default:
        collected.failures.append(.failed(path: path, error: .io(path: path, reason: "not a regular file")))
      }
    }
    return collected
  }

  /// Why a file whose name is not UTF-8 is not imported (its invalid bytes are shown
  /// `\xNN`): a photo's name is kept as text.
  static let undecodableName =
    "its name is not valid UTF-8 (each invalid byte is shown here as \\xNN), and vault keeps names as text; "
    + "rename it to import it"
}
