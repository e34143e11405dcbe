/// How `export --by-album` lays photos out: one folder per album, named as the album
/// (album names hold no `/`, see `AlbumName`), a photo in several albums in each of their
/// folders, and photos in no album in a folder of their own.
public enum AlbumFolders {
  /// The folder of the photos in no album; ` (1)`, ` (2)`… when an album has that name.
  public static let noAlbumFolder = "No album"

  /// `photos` grouped by folder, folders in album order, the no-album folder last, photos
  /// in their order. With `only`, just that album's folder (the photos not in it are left
  /// out).
  public static func groups(_ photos: [PhotoModel], only: String? = nil) -> [(
    folder: String, photos: [PhotoModel]
  )] {
    var byAlbum: [String: [PhotoModel]] = [:]
    var inNoAlbum: [PhotoModel] = []
    for photo in photos {
      let albums = only.map { photo.albums.contains($0) ? [$0] : [] } ?? photo.albums
      if albums.isEmpty && only == nil { inNoAlbum.append(photo) }
      for album in albums { byAlbum[album, default: []].append(photo) }
    }
    let names = byAlbum.keys.sorted { ($0.lowercased(), $0) < ($1.lowercased(), $1) }
    // Folder names are made safe, and told apart ignoring case (a FAT card or an SMB share
    // would merge `Trip` and `trip`): names in a synced journal were written by whoever
    // holds the password, not necessarily by this vault, which checks the names it writes.
    var taken = Set<String>()
    func unique(_ base: String) -> String {
      var folder = base
      var number = 0
      while taken.contains(folder.lowercased()) {
        number += 1
        folder = "\(base) (\(number))"
      }
      taken.insert(folder.lowercased())
      return folder
    }
    var groups = names.map { (folder: unique(safeFolderName($0)), photos: byAlbum[$0]!) }
    if !inNoAlbum.isEmpty { groups.append((unique(noAlbumFolder), inNoAlbum)) }
    return groups
  }

  /// A folder name for an album: one path component whatever the name (no `/`, no NUL
  /// or control character, never `.` or `..`, never empty), at most 240 bytes of UTF-8
  /// (room for a ` (n)` within the 255 a file name may take).
  static func safeFolderName(_ name: String) -> String {
    var folder = ""
    for character in name {
      let unsafe =
        character == "/"
        || character.unicodeScalars.contains { $0.value == 0 || TerminalSafeText.isUnsafe($0) }
      let next = unsafe ? "_" : String(character)
      if folder.utf8.count + next.utf8.count > 240 { break }
      folder += next
    }
    let trimmed = folder.trimmingCharacters(in: .whitespaces)
    return trimmed.isEmpty || trimmed == "." || trimmed == ".." ? "album" : trimmed
  }
}
