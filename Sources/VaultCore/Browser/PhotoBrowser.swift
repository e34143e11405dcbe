/// Agony's SGPhotoBrowser without the screen: it never owns the photos. It is made with
/// its data source whole (`PhotoDataSource`: how many photos, the photo at an index, a
/// reload request, loaders of a thumbnail and an original, and requests to select, delete,
/// put in and take out of albums), and everything the commands do with photos goes through
/// it: counting and choosing them, listing them in rows, drawing the grid, decoding a photo
/// to show or exporting it, selecting, deleting and album changes. `Space.makeBrowser`
/// wires one to a space.
public final class PhotoBrowser {
  /// Where the photos come from and where changes go; given whole at `init`.
  public let dataSource: PhotoDataSource
  /// Which photos the browser shows when not all of them (" in album 'Trip' from
  /// 2024-06-01"), for messages; empty when it shows every photo.
  public var scopeDescription = ""
  /// How many photos a grid row holds.
  public var numberOfPhotosPerRow: Int
  /// Whose pixel and memory limits decoding a photo keeps to, and whose gray shows through
  /// a transparent one.
  public var thumbnailer = Thumbnailer()
  /// The decoder helper that decodes originals to be shown (started when first needed,
  /// unless its owner started it ahead: `DecoderPool.prestart`).
  public var stillDecoders = DecoderPool(size: 1)
  /// The decoder helper that plays videos and animations (`movingPicture`): one of its own,
  /// held by what plays for as long as it plays, so that the pictures shown meanwhile (and
  /// decoded ahead) never wait for frames, and a file that kills it leaves them alone.
  public var playbackDecoders = DecoderPool(size: 1)

  /// Details read from originals decoded for showing, not stored yet (`storeFoundDetails`).
  public private(set) var foundDetails: [BlobID: PhotoDetails] = [:]

  public init(dataSource: PhotoDataSource, numberOfPhotosPerRow: Int = 4) {
    self.dataSource = dataSource
    self.numberOfPhotosPerRow = numberOfPhotosPerRow
  }

  /// What to say when the browser has no photo to show.
  public var emptyText: String {
    scopeDescription.isEmpty ? "no photos in this space" : "no photos" + scopeDescription
  }

  /// The photo count, read from the data source every time, so it cannot go stale.
  public var count: Int { dataSource.numberOfPhotos() }

  /// Asks the owner to re-read its photos (Agony's `reloadData`); the browser itself keeps
  /// nothing to refresh.
  public func reloadData() { dataSource.reload() }

  /// The photo at a 0-based index, nil past the last one.
  public func photo(at index: Int) -> PhotoModel? {
    index >= 0 && index < count ? dataSource.photoAtIndex(index) : nil
  }

  /// Reads the photos again for an owner that stays open (see `PhotoDataSource.readAgain`);
  /// returns why they no longer read whole, if they do not (the browser then keeps what it
  /// had until `reloadData`).
  public func readAgain(waitingAtMost waitLimit: Double? = nil) throws -> VaultError? {
    try dataSource.readAgain(waitLimit)
  }

  /// The album named `name`, if there is one.
  public func album(named name: String) -> Album? { dataSource.albumNamed(name) }

  /// The album named `name`; throws `.noSuchAlbum` if there is none.
  public func requireAlbum(named name: String) throws -> Album {
    guard let album = album(named: name) else { throw VaultError.noSuchAlbum(name) }
    return album
  }

  /// Every album, in name order.
  public var albums: [Album] { dataSource.albums() }

  /// Every album, in name order, with its newest photo.
  public func albumSummaries() -> [AlbumSummary] { dataSource.albumSummaries() }

  /// Changes whenever the photos listed, their order or their selection may have changed.
  public func listRevision() -> Int { dataSource.listRevision() }

  /// Whether a photo's file has been read for its date taken and camera.
  public func detailsAreKnown(_ record: PhotoRecord) -> Bool { dataSource.detailsAreKnown(record) }

  /// Where the photo `id` is listed now, if it is: what a viewer that shows one photo
  /// uses to stay on it when the list changes under it.
  public func index(of id: BlobID) -> Int? { dataSource.indexOfPhoto(id) }

  // MARK: Choosing photos

  /// The photos in `listed` cut into rows of `numberOfPhotosPerRow`.
  public func rows(of listed: [(index: Int, photo: PhotoModel)]) -> [[(index: Int, photo: PhotoModel)]] {
    guard numberOfPhotosPerRow > 0 else { return [] }
    return stride(from: 0, to: listed.count, by: numberOfPhotosPerRow).map { start in
      Array(listed[start..<min(start + numberOfPhotosPerRow, listed.count)])
    }
  }

  /// The photos a listing shows, with their 0-based indexes: only the selected ones when
  /// `selectedOnly`, from photo number `from` (1-based) on, at most `count` of them. The
  /// photos keep their numbers in the browser's list (the scope it was made with),
  /// whatever `selectedOnly` leaves out, and models are made only for the photos looked
  /// at, so a page of a big space lists quickly.
  public func listed(selectedOnly: Bool, from: Int?, count limit: Int?) -> [(index: Int, photo: PhotoModel)] {
    let total = count
    let limit = max(0, limit ?? total)
    let start = max(0, (from ?? 1) - 1)
    // `limit` is the user's number: up to Int.max, it must not be added to anything.
    let end = start >= total ? start : limit >= total - start ? total : start + limit
    let indexes =
      selectedOnly ? Array(selectedIndexes().drop { $0 < start }.prefix(limit)) : Array(start..<end)
    return indexes.map { ($0, dataSource.photoAtIndex($0)) }
  }

  /// The 0-based indexes of the selected photos, in order, without making their models.
  public func selectedIndexes() -> [Int] {
    dataSource.selectedIndexes()
  }

  /// The id of the photo at `index` (0-based), without making its model.
  public func id(at index: Int) -> BlobID {
    dataSource.idAtIndex(index)
  }

  /// The selected photos, in order, with their 0-based indexes.
  public func selectedPhotos() -> [(index: Int, photo: PhotoModel)] {
    listed(selectedOnly: true, from: nil, count: nil)
  }

  /// The photos `choice` names, in order, with their 0-based indexes. `action` words the
  /// error when nothing is chosen ("deleting", "exporting").
  public func photos(chosenBy choice: PhotoChoice, action: String) throws -> [(index: Int, photo: PhotoModel)]
  {
    let photoAtIndex = dataSource.photoAtIndex
    switch choice {
    case .selected:
      let selected = selectedPhotos()
      if selected.isEmpty { throw VaultError.nothingSelected(action: action) }
      return selected
    case .all:
      if count == 0 {
        // An empty album is not an empty space.
        if !scopeDescription.isEmpty {
          throw VaultError.invalidArgument("no photos\(scopeDescription) (nothing to do for \(action))")
        }
        throw VaultError.emptySpace(action: action)
      }
      return listed(selectedOnly: false, from: nil, count: nil)
    case .photos(let terms):
      // Ids are asked for only when a term is an id: numbers in a big space cost nothing
      // per photo.
      // A Live Photo is chosen by its MOV's id too (verify names a damaged MOV by it).
      return try PhotoSelector.positions(terms, count: count) { index -> [String] in
        photoAtIndex(index).records.map(\.id.hex)
      }.map {
        ($0, photoAtIndex($0))
      }
    }
  }

  // MARK: Changing photos

  /// Sets the selection of the photos at `indexes` (0-based) to `selected`, then asks the
  /// owner to reload.
  public func setSelected(_ indexes: [Int], _ selected: Bool) throws {
    try changeSelection(indexes.map { ($0, selected) })
  }

  /// Selects the unselected photos and unselects the selected ones, in one change.
  public func invertSelection() throws {
    try changeSelection(
      listed(selectedOnly: false, from: nil, count: nil).map { ($0.index, !$0.photo.isSelected) })
  }

  private func changeSelection(_ changes: [(index: Int, selected: Bool)]) throws {
    try dataSource.selectionRequest(changes)
    dataSource.reload()
  }

  /// Moves `photos` to Recently Deleted through the deletion request, or with `forGood`
  /// deletes them through the permanent one, then asks the owner to reload; the count read
  /// after this is the data source's new one.
  public func delete(_ photos: [PhotoModel], forGood: Bool = false) throws {
    if forGood {
      guard let permanent = dataSource.permanentDeletionRequest else {
        throw VaultError.invalidArgument("these photos cannot be deleted for good here; nothing deleted")
      }
      try permanent(photos)
    } else {
      try dataSource.deletionRequest(photos)
    }
    dataSource.reload()
  }

  /// Puts `photos` in the album `name`, then asks the owner to reload. When there is no
  /// such album, it is made if `creating` (the default), else `.noSuchAlbum` is thrown.
  @discardableResult
  public func addToAlbum(_ name: String, _ photos: [PhotoModel], creating: Bool = true) throws
    -> AlbumAddition
  {
    let addition = try dataSource.albumAdditionRequest(name, photos, creating)
    dataSource.reload()
    return addition
  }

  /// Takes `photos` out of the album `name` (they stay in the space), then asks the owner
  /// to reload; returns how many were in it.
  @discardableResult
  public func removeFromAlbum(_ name: String, _ photos: [PhotoModel]) throws -> Int {
    let removed = try dataSource.albumRemovalRequest(name, photos)
    dataSource.reload()
    return removed
  }

  // MARK: Pictures

  /// The thumbnail of the photo at `index` decoded at the smallest DCT scale that still
  /// gives at least `minimumSize` (thumbnails are stored already turned upright).
  public func thumbnailImage(at index: Int, minimumSize: PixelSize) throws -> RGBImage {
    let record = dataSource.photoAtIndex(index).record
    var jpeg = try dataSource.thumbnail(record)
    defer { jpeg.wipe() }
    return try RGBImage.decodeJPEG(
      jpeg, name: "thumbnail of '\(record.name)'", minimumWidth: minimumSize.width,
      minimumHeight: minimumSize.height, thumbnail: true)
  }

  /// The original of the photo at `index`, decrypted and decoded in memory, as shown (EXIF
  /// orientation applied). A JPEG is decoded at the largest DCT scale denominator (8, 4, 2,
  /// 1) that still gives at least `minimumSize` as shown (nil: full size); a PNG whole,
  /// transparency over the thumbnailer's gray. A photo over the thumbnailer's pixel or
  /// memory limit is refused as on import, before its pixels are decoded.
  public func originalImage(at index: Int, minimumSize: PixelSize?) throws -> DecodedPhoto {
    try originalImage(of: dataSource.photoAtIndex(index).record, minimumSize: minimumSize)
  }

  /// The same for the photo `record` stands for: what a background thread uses (the
  /// viewer decodes ahead), since indexes shift under it when photos are deleted. Safe to
  /// call from another thread, as the data source's loader is.
  public func originalImage(of record: PhotoRecord, minimumSize: PixelSize?) throws -> DecodedPhoto {
    let request = DecoderRequest(
      wants: [.picture], thumbnailer: thumbnailer, format: record.format, name: record.name,
      size: record.bytes,
      delivery: .bytes, minimumSize: minimumSize)
    if record.format.isVideo, let ranges = dataSource.originalRanges {
      // Read by range: a video of gigabytes is shown without being held.
      return try stillDecoders.picture(request, input: .ranges(ranges(record, false)), name: record.name)
    }
    // The file itself is held whole: refused before it is decrypted when it alone is too much.
    // Saturating: a size near the end of 64 bits (only a forged record has one) is too much.
    let (needed, overflow) = Int(clamping: record.bytes).addingReportingOverflow(Thumbnailer.fixedMemory)
    try thumbnailer.checkMemory(path: record.name, bytes: overflow ? .max : needed)
    let plaintext = try originalBytes(of: record)
    return try withExtendedLifetime(plaintext) {
      try stillDecoders.picture(request, input: .bytes(plaintext.pinned), name: record.name)
    }
  }

  /// The original of the photo `record` stands for, decrypted whole into memory (never to
  /// disk) through the data source's loader, once every byte of it has authenticated and
  /// its content hash matches. The caller makes sure the record's size is one it can hold.
  public func originalBytes(of record: PhotoRecord) throws -> PlaintextBytes {
    let what = "photo '\(record.name)' (\(record.id))"
    guard let count = Int(exactly: record.bytes), count >= 0 else {
      throw VaultError.damagedBlob(what: what, reason: "its size \(record.bytes) is out of range")
    }
    let plaintext = PlaintextBytes(count: count)
    var filled = 0
    try dataSource.original(record) { chunk in
      // A version-1 blob is read to its end before its size is checked.
      guard chunk.count <= count - filled else {
        throw VaultError.damagedBlob(
          what: what, reason: "holds more than the \(record.bytes) bytes its record says")
      }
      guard let bytes = chunk.baseAddress else { return }
      UnsafeMutableRawPointer(plaintext.pinned.buffer.baseAddress! + filled).copyMemory(
        from: bytes, byteCount: chunk.count)
      filled += chunk.count
    }
    return plaintext
  }

  // MARK: Details

  /// Keeps the details found in `decoded`, the original of the photo `record` stands for,
  /// when its file had not been read for them (a photo imported before vault read them):
  /// `storeFoundDetails` stores them.
  public func noteDetails(of record: PhotoRecord, in decoded: DecodedPhoto) {
    guard foundDetails[record.id] == nil, dataSource.detailsAreKnown(record) == false else { return }
    foundDetails[record.id] = decoded.details
  }

  /// `record` with the details found for it and not stored yet, if any: what to show.
  public func withFoundDetails(_ record: PhotoRecord) -> PhotoRecord {
    foundDetails[record.id].map { $0.applied(to: record) } ?? record
  }

  /// Hands the details found so far to the owner's `detailsRequest`, then asks it to reload.
  public func storeFoundDetails() {
    guard !foundDetails.isEmpty else { return }
    let found = foundDetails
    foundDetails = [:]
    dataSource.detailsRequest(found)
    dataSource.reload()
  }
}
