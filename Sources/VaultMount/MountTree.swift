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
    /// Where each name is in `names`, for a look-up by name.
    var positions: [String: Int] = [:]
    let path: String
    let inode: UInt64
    /// The folder holding this one (the root holds itself).
    let parent: Int
  }

  /// An original a file shows, with its inode number and the number of folders showing it
  /// (its link count: the same photo in `Photos/`, an album and its month is one inode).
  struct File {
    let record: PhotoRecord
    let inode: UInt64
    var links: Int
  }

  /// Folders by number; 0 is the root.
  private(set) var folders: [Folder]
  /// The originals the files show, by number; a photo shown in several folders has one.
  private(set) var files: [File] = []
  /// What each inode number shows now.
  private(set) var nodesByInode: [UInt64: Node] = [:]
  /// The numbers of this tree's nodes, and of those of the trees before it.
  private(set) var inodes: InodeNumbers
  private var fileNumbers: [BlobID: Int] = [:]

  /// The names the files show under (see `ShownNames`): the same in every folder, Recently
  /// Deleted's too.
  private let shownNames: [BlobID: String]

  /// The tree of `photos` (in the browser's order), and of `trashed`, the items of Recently
  /// Deleted, each file under its name in `shownNames` (numbered in the browser's order when
  /// it has none there).
  /// Its nodes keep the numbers `inodes` gave them (those of the tree it replaces).
  init(
    photos: [PhotoModel], trashed: [PhotoModel] = [], shownNames: [BlobID: String] = [:],
    zone: TimeZone = .current, inodes: InodeNumbers = InodeNumbers()
  ) {
    self.shownNames = shownNames
    self.inodes = inodes
    folders = [Folder(path: "/", inode: InodeNumbers.root, parent: 0)]
    nodesByInode = [InodeNumbers.root: .folder(0)]
    nodesByInode.reserveCapacity(photos.count + trashed.count + 64)
    fileNumbers.reserveCapacity(photos.count + trashed.count)
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
    let folderPath = (path == "/" ? "/" : path + "/") + name
    let inode = inodes.folder(folderPath)
    folders.append(Folder(path: folderPath, inode: inode, parent: parent))
    add(name, .folder(number), to: parent)
    nodesByInode[inode] = .folder(number)
    return number
  }

  private mutating func addFiles(_ records: [PhotoRecord], to folder: Int, path: String) {
    let names = PhotoExporter.namesInEmptyFolder(records, shown: shownNames)
    folders[folder].names.reserveCapacity(records.count)
    folders[folder].nodes.reserveCapacity(records.count)
    folders[folder].positions.reserveCapacity(records.count)
    for (record, name) in zip(records, names) {
      let number: Int
      if let known = fileNumbers[record.id] {
        number = known
        files[number].links += 1
      } else {
        number = files.count
        let inode = inodes.file(record.id)
        files.append(File(record: record, inode: inode, links: 1))
        fileNumbers[record.id] = number
        nodesByInode[inode] = .file(number)
      }
      add(name, .file(number), to: folder)
    }
  }

  /// Names are told apart by their bytes (as `namesInEmptyFolder` makes them), and a
  /// String key by canonical equivalence: of two names equal that way, the key finds the
  /// first, and `child` looks further for the other.
  private mutating func add(_ name: String, _ node: Node, to folder: Int) {
    let position = folders[folder].names.count
    folders[folder].names.append(name)
    folders[folder].nodes.append(node)
    if folders[folder].positions[name] == nil { folders[folder].positions[name] = position }
  }

  /// The node named `name` (its bytes) in folder `folder`.
  func child(_ name: String, of folder: Int) -> Node? {
    let shown = folders[folder]
    guard let position = shown.positions[name] else { return nil }
    if shown.names[position].utf8.elementsEqual(name.utf8) { return shown.nodes[position] }
    return shown.names.firstIndex { $0.utf8.elementsEqual(name.utf8) }.map { shown.nodes[$0] }
  }

  /// The node at `path` ("/Photos/IMG_1.jpg"; "/" is the root).
  func node(at path: String) -> Node? {
    var node = Node.folder(0)
    for name in path.split(separator: "/", omittingEmptySubsequences: true) {
      guard case .folder(let folder) = node, let next = child(String(name), of: folder) else { return nil }
      node = next
    }
    return node
  }

  func inode(of node: Node) -> UInt64 {
    switch node {
    case .folder(let number): folders[number].inode
    case .file(let number): files[number].inode
    }
  }

  /// The names (a folder's inode and a name in it) that show something else in `newer`
  /// (another photo, or nothing): the kernel's cache of them is dropped when the tree is
  /// swapped. A folder gone in `newer` is one name in its parent, whatever it held.
  func entriesChanged(in newer: MountTree) -> [(folder: UInt64, name: String)] {
    var changed: [(folder: UInt64, name: String)] = []
    for folder in folders {
      guard case .folder(let newerFolder)? = newer.nodesByInode[folder.inode] else { continue }
      for (name, node) in zip(folder.names, folder.nodes) {
        let now = newer.child(name, of: newerFolder).map { newer.inode(of: $0) }
        if now != inode(of: node) { changed.append((folder.inode, name)) }
      }
    }
    return changed
  }
}
