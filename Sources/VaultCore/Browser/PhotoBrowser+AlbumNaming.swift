/// Albums made, renamed and deleted through the data source's `albumNamingRequest`, like
/// every other change the browser asks for; the owner reloads after each.
extension PhotoBrowser {
  /// Makes an empty album named `name` (as `AlbumName.normalized` returns it).
  public func createAlbum(named name: String) throws {
    _ = try changeAlbum(.create(name))
  }

  /// Renames the album `name` to `newName`; returns the album's old name, as it was kept.
  @discardableResult
  public func renameAlbum(_ name: String, to newName: String) throws -> String {
    try changeAlbum(.rename(name, to: newName))?.name ?? name
  }

  /// Deletes the album `name` for good (its photos stay); returns the album as it was.
  @discardableResult
  public func deleteAlbum(named name: String) throws -> Album {
    guard let deleted = try changeAlbum(.delete(name)) else { throw VaultError.noSuchAlbum(name) }
    return deleted
  }

  private func changeAlbum(_ naming: AlbumNaming) throws -> Album? {
    let before = try dataSource.albumNamingRequest(naming)
    dataSource.reload()
    return before
  }
}
