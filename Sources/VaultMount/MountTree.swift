import Foundation
import VaultCore

/// What a mount shows, built once per load of the space so that a look-up is one
/// dictionary probe and a listing one walk of an array: `Photos/` (every photo, named as
/// `vault export` names them), `Albums/<album>/` (as `export --by-album` names the
/// folders), `Dates/<year>/<month>/` (a photo's date as `--since` and `--until` read it,
/// in the local time zone), `Selected/` and `Recently Deleted/` (the photos `vault trash`
/// lists, most recently deleted first, named as an export of them would be). A Live Photo
/// shows its still and its MOV.
struct MountTree: Sendable {
  enum Node: Hashable {
    case folder(Int)
    case file(Int)
  }

  struct Folder {
    var names: [String] = []
    var nodes: [Node] = []
  }

  /// Folders by number; 0 is the root.
  private(set) var folders: [Folder] = [Folder()]
  /// The originals the files show, by number; a photo shown in several folders has one.
  private(set) var files: [PhotoRecord] = []
  /// Every path ("/Photos/IMG_1.jpg"), and "/" for the root.
  private(set) var nodes: [String: Node] = ["/": .folder(0)]
  private var fileNumbers: [BlobID: Int] = [:]

  /// The names the files show under (see `ShownNames`): the same in every folder, Recently
  /// Deleted's too.
  private let shownNames: [BlobID: String]

  /// The tree of `photos` (in the browser's order), and of `trashed`, the items of Recently
  /// Deleted, each file under its name in `shownNames` (numbered in the browser's order when
  /// it has none there).
  init(
    photos: [PhotoModel], trashed: [PhotoModel] = [], shownNames: [BlobID: String] = [:],
    zone: TimeZone = .current
  ) {
    self.shownNames = shownNames
    nodes.reserveCapacity(photos.count * 3)
    fileNumbers.reserveCapacity(photos.count)
    let root = 0
    addFiles(
      PhotoExporter.originals(of: photos), to: addFolder("Photos", in: root, path: "/"), path: "/Photos")
    let albums = addFolder("Albums", in: root, path: "/")
    var groups = AlbumFolders.groups(photos)
    // The last group is the photos in no album, which has no folder here.
    if photos.contains(where: { $0.albums.isEmpty }) { groups.removeLast() }
    for group in groups {
      let folder = addFolder(group.folder, in: albums, path: "/Albums")
      addFiles(PhotoExporter.originals(of: group.photos), to: folder, path: "/Albums/" + group.folder)
    }
    addDates(of: photos, zone: zone)
    let selected = addFolder("Selected", in: root, path: "/")
    addFiles(PhotoExporter.originals(of: photos.filter(\.isSelected)), to: selected, path: "/Selected")
    let trash = addFolder(Self.trashFolder, in: root, path: "/")
    addFiles(PhotoExporter.originals(of: trashed), to: trash, path: "/" + Self.trashFolder)
  }

  static let trashFolder = "Recently Deleted"

  /// `Dates/<year>/<month>/`, years and months in order, photos in theirs.
  private mutating func addDates(of photos: [PhotoModel], zone: TimeZone) {
    let dates = addFolder("Dates", in: 0, path: "/")
    var months: [Int: [Int: [PhotoModel]]] = [:]
    for photo in photos {
      let clock = Self.localDate(of: photo.record, zone: zone)
      months[clock.year, default: [:]][clock.month, default: []].append(photo)
    }
    for year in months.keys.sorted() {
      let yearName = String(format: "%04d", year)
      let yearFolder = addFolder(yearName, in: dates, path: "/Dates")
      for (month, inMonth) in months[year]!.sorted(by: { $0.key < $1.key }) {
        let monthName = String(format: "%02d", month)
        let path = "/Dates/\(yearName)/\(monthName)"
        addFiles(
          PhotoExporter.originals(of: inMonth),
          to: addFolder(monthName, in: yearFolder, path: "/Dates/" + yearName),
          path: path)
      }
    }
  }

  /// The photo's date as vault sorts and scopes by it (`PhotoDates`: when it was taken,
  /// else when it was imported), as a date in `zone`.
  static func localDate(of record: PhotoRecord, zone: TimeZone) -> CaptureTime.WallClock {
    let seconds = record.taken?.secondsSince1970(assuming: zone) ?? record.importedAt.seconds
    let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    return CaptureTime(localSeconds: seconds + Int64(offset)).wallClock
  }

  private mutating func addFolder(_ name: String, in parent: Int, path: String) -> Int {
    let number = folders.count
    folders.append(Folder())
    folders[parent].names.append(name)
    folders[parent].nodes.append(.folder(number))
    nodes[(path == "/" ? "/" : path + "/") + name] = .folder(number)
    return number
  }

  private mutating func addFiles(_ records: [PhotoRecord], to folder: Int, path: String) {
    let names = PhotoExporter.namesInEmptyFolder(records, shown: shownNames)
    folders[folder].names.reserveCapacity(records.count)
    folders[folder].nodes.reserveCapacity(records.count)
    for (record, name) in zip(records, names) {
      let number =
        fileNumbers[record.id]
        ?? {
          files.append(record)
          fileNumbers[record.id] = files.count - 1
          return files.count - 1
        }()
      folders[folder].names.append(name)
      folders[folder].nodes.append(.file(number))
      nodes[path + "/" + name] = .file(number)
    }
  }

  /// The paths that show something else in `newer` (another photo, or nothing): the
  /// kernel's cache of them is dropped when the tree is swapped.
  func pathsChanged(in newer: MountTree) -> [String] {
    nodes.compactMap { path, node in
      guard case .file(let number) = node else { return nil }
      guard case .file(let other) = newer.nodes[path], newer.files[other].id == files[number].id else {
        return path
      }
      return nil
    }
  }
}
