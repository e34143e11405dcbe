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
    var groups = names.map { (folder: $0, photos: byAlbum[$0]!) }
    if !inNoAlbum.isEmpty {
      var folder = noAlbumFolder
      var number = 0
      while byAlbum[folder] != nil {
        number += 1
        folder = "\(noAlbumFolder) (\(number))"
      }
      groups.append((folder, inNoAlbum))
    }
    return groups
  }
}
