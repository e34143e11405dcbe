/// How `export --by-album` lays photos out: one folder per album, named as the album
/// (made safe as any path component: see `PathComponent`), a photo in several albums in
/// each of their folders, and photos in no album in a folder of their own.
public enum AlbumFolders {
  /// The folder of the photos in no album; ` (1)`, ` (2)`… when an album has that name.
  public static let noAlbumFolder = "No album"

  /// `photos` grouped by folder, folders in album order, the no-album folder last, photos
  /// in their order. With `only`, just that album's folder (the photos not in it are left
  /// out).
  public static func groups(_ photos: [PhotoModel], only: String? = nil) -> [(
    folder: String, photos: [PhotoModel]
  )] {
    // Albums are told apart by their names' bytes: Swift's String equality is canonical
    // equivalence, which would merge `Café` written in NFC and in NFD (two albums a
    // merge of two copies can hold) into one folder. Each keeps a folder of its own, the
    // second numbered as any name taken already is.
    var byAlbum: [[UInt8]: [PhotoModel]] = [:]
    var inNoAlbum: [PhotoModel] = []
    for photo in photos {
      let albums = only.map { photo.albums.contains($0) ? [$0] : [] } ?? photo.albums
      if albums.isEmpty && only == nil { inNoAlbum.append(photo) }
      for album in albums { byAlbum[Array(album.utf8), default: []].append(photo) }
    }
    let names = byAlbum.keys.map { String(decoding: $0, as: UTF8.self) }.sorted(by: inAlbumOrder)
    // Folder names are made safe, and told apart ignoring case (a FAT card or an SMB share
    // would merge `Trip` and `trip`): names in a synced journal were written by whoever
    // holds the password, not necessarily by this vault, which checks the names it writes.
    var taken = Set<String>()
    func unique(_ base: String) -> String {
      for number in 0... {
        let folder = PathComponent.numbered(base, number, keepingExtension: false)
        if taken.insert(folder.lowercased()).inserted { return folder }
      }
      fatalError("unreachable")
    }
    var groups = names.map { (folder: unique(safeFolderName($0)), photos: byAlbum[Array($0.utf8)]!) }
    if !inNoAlbum.isEmpty { groups.append((unique(noAlbumFolder), inNoAlbum)) }
    return groups
  }

  /// Album names without regard to case, then as Swift orders them, then by their bytes (so
  /// that names equal but for their normalization come in one order every time).
  private static func inAlbumOrder(_ first: String, _ second: String) -> Bool {
    if (first.lowercased(), first) != (second.lowercased(), second) {
      return (first.lowercased(), first) < (second.lowercased(), second)
    }
    return first.utf8.lexicographicallyPrecedes(second.utf8)
  }

  /// A folder name for an album (see `PathComponent`; "album" for a name that reads as
  /// nothing, `.` or `..`).
  static func safeFolderName(_ name: String) -> String {
    PathComponent.safe(name, fallback: "album")
  }
}
