import VaultCore

extension PhotoBrowser {
  /// One row of the thumbnail grid as one picture (see `GridRowImage`), `cellRows`
  /// characters tall, a character being `characterWidth`×`characterHeight` pixels. Only
  /// this row's thumbnails are decrypted; one that cannot be read is reported to `failure`
  /// with its index and drawn as a gray cell.
  public func gridRowImage(
    _ row: [(index: Int, photo: PhotoModel)], layout: GridLayout, cellRows: Int, characterWidth: Int,
    characterHeight: Int, failure: (Int, Error) -> Void
  ) -> GridRowImage {
    let character = GridRowImage.characterSize(
      layout: layout, rows: cellRows, character: PixelSize(width: characterWidth, height: characterHeight))
    let cellSize = PixelSize(width: layout.cellWidth * character.width, height: cellRows * character.height)
    var cells = row.map { item in
      var thumbnail: RGBImage?
      do {
        thumbnail = try thumbnailImage(at: item.index, minimumSize: cellSize)
      } catch {
        failure(item.index, error)
      }
      return GridRowImage.Cell(thumbnail: thumbnail, selected: item.photo.isSelected)
    }
    defer {
      for position in cells.indices { cells[position].thumbnail?.pixels.wipe() }
    }
    return GridRowImage(
      cells: cells, layout: layout, rows: cellRows, characterWidth: character.width,
      characterHeight: character.height)
  }
}
