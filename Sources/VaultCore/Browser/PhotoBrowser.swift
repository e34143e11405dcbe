/// Agony's SGPhotoBrowser without the screen: it never owns the photos. Its owner hands it
/// closures (how many photos, the photo at an index, a reload request, loaders of a
/// thumbnail and an original, and requests to select and delete), and everything the
/// commands do with photos goes through it: choosing them, listing them in rows, drawing
/// the grid, decoding a photo to show, selecting and deleting. `Space.makeBrowser` wires
/// one to a space.
public final class PhotoBrowser {
  /// The number of photos; required. Read again every time: the browser keeps no count.
  public var numberOfPhotos: (() -> Int)?
  /// The photo at a 0-based index; required.
  public var photoAtIndex: ((Int) -> PhotoModel)?
  /// Asks the owner to re-read its photos; called after each selection change and batch
  /// delete.
  public var reloadRequest: (() -> Void)?
  /// The decrypted thumbnail (a JPEG) of the photo at an index; the caller wipes it.
  public var thumbnailAtIndex: ((Int) throws -> [UInt8])?
  /// The decrypted original of the photo at an index, in memory only; wiped when released.
  public var originalAtIndex: ((Int) throws -> PlaintextBytes)?
  /// The same by the photo's record: what a background thread uses (the viewer decodes
  /// ahead), since indexes shift under it when the owner deletes photos.
  public var originalOfRecord: ((PhotoRecord) throws -> PlaintextBytes)?
  /// Sets the selection of photos by 0-based index, all in one change.
  public var selectionRequest: (([(index: Int, selected: Bool)]) throws -> Void)?
  /// Deletes photos, originals and thumbnails.
  public var deletionRequest: (([PhotoModel]) throws -> Void)?
  /// Puts photos in the album of a name (made if there is none).
  public var albumRequest: ((String, [PhotoModel]) throws -> AlbumAddition)?
  /// Whether a photo's file has been read for its date taken and camera; photos imported
  /// before vault read them have not. Unset: every photo has.
  public var detailsAreKnown: ((PhotoRecord) -> Bool)?
  /// Stores details that decoding originals read, by photo id; best effort (it must not
  /// hold up or fail what is being shown: the details are read again another time).
  public var detailsRequest: (([BlobID: PhotoDetails]) -> Void)?
  /// The index of the photo with an id, if it is listed. Unset: found through
  /// `photoAtIndex`, one photo at a time.
  public var indexOfPhoto: ((BlobID) -> Int?)?
  /// Changes whenever the photos listed, their order or their selection may have changed;
  /// unset, the browser says it always may have.
  public var listRevision: (() -> Int)?
  /// Which photos the browser shows when not all of them (" in album 'Trip' from
  /// 2024-06-01"), for messages; empty when it shows every photo.
  public var scopeDescription = ""
  /// How many photos a grid row holds.
  public var numberOfPhotosPerRow: Int
  /// Whose pixel and memory limits decoding a photo keeps to, and whose gray shows through
  /// a transparent one.
  public var thumbnailer = Thumbnailer()

  /// Details read from originals decoded for showing, not stored yet (`storeFoundDetails`).
  public private(set) var foundDetails: [BlobID: PhotoDetails] = [:]

  public init(numberOfPhotosPerRow: Int = 4) {
    self.numberOfPhotosPerRow = numberOfPhotosPerRow
  }

  /// Whether both required closures are set; until then the browser shows nothing.
  public var isReady: Bool { numberOfPhotos != nil && photoAtIndex != nil }

  /// What to say when the browser has no photo to show.
  public var emptyText: String {
    scopeDescription.isEmpty ? "no photos in this space" : "no photos" + scopeDescription
  }

  /// The photo count, read from the data source every time, so it cannot go stale.
  public var count: Int { isReady ? numberOfPhotos?() ?? 0 : 0 }

  /// Where the photo `id` is listed now, if it is: what a viewer that shows one photo
  /// uses to stay on it when the list changes under it.
  public func index(of id: BlobID) -> Int? {
    if let indexOfPhoto { return indexOfPhoto(id) }
    return (0..<count).first { photoAtIndex?($0).record.id == id }
  }

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
    guard let photoAtIndex else { return [] }
    let total = count
    let limit = limit ?? total
    var listed: [(index: Int, photo: PhotoModel)] = []
    var index = max(0, (from ?? 1) - 1)
    while index < total && listed.count < limit {
      let photo = photoAtIndex(index)
      if !selectedOnly || photo.isSelected { listed.append((index, photo)) }
      index += 1
    }
    return listed
  }

  /// The selected photos, in order, with their 0-based indexes.
  public func selectedPhotos() -> [(index: Int, photo: PhotoModel)] {
    listed(selectedOnly: true, from: nil, count: nil)
  }

  /// The photos `choice` names, in order, with their 0-based indexes. `action` words the
  /// error when nothing is chosen ("deleting", "exporting").
  public func photos(chosenBy choice: PhotoChoice, action: String) throws -> [(index: Int, photo: PhotoModel)]
  {
    guard let photoAtIndex else { return [] }
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
      return try PhotoSelector.positions(terms, count: count) { photoAtIndex($0).record.id.hex }.map {
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
    guard let selectionRequest else { preconditionFailure("the browser's owner set no selectionRequest") }
    try selectionRequest(changes)
    reloadRequest?()
  }

  /// Deletes `photos` through the deletion request, then asks the owner to reload; the
  /// count read after this is the data source's new one.
  public func delete(_ photos: [PhotoModel]) throws {
    guard let deletionRequest else { preconditionFailure("the browser's owner set no deletionRequest") }
    try deletionRequest(photos)
    reloadRequest?()
  }

  /// Puts `photos` in the album `name` (made when there is none yet), then asks the owner
  /// to reload.
  @discardableResult
  public func addToAlbum(_ name: String, _ photos: [PhotoModel]) throws -> AlbumAddition {
    guard let albumRequest else { preconditionFailure("the browser's owner set no albumRequest") }
    let addition = try albumRequest(name, photos)
    reloadRequest?()
    return addition
  }

  // MARK: Pictures

  /// The thumbnail of the photo at `index` decoded at the smallest DCT scale that still
  /// gives at least `minimumSize` (thumbnails are stored already turned upright).
  public func thumbnailImage(at index: Int, minimumSize: PixelSize) throws -> RGBImage {
    guard let thumbnailAtIndex, let photoAtIndex else {
      preconditionFailure("the browser's owner set no thumbnailAtIndex or photoAtIndex")
    }
    var jpeg = try thumbnailAtIndex(index)
    defer { jpeg.wipe() }
    return try RGBImage.decodeJPEG(
      jpeg, name: "thumbnail of '\(photoAtIndex(index).record.name)'", minimumWidth: minimumSize.width,
      minimumHeight: minimumSize.height, thumbnail: true)
  }

  /// The original of the photo at `index`, decrypted and decoded in memory, as shown (EXIF
  /// orientation applied). A JPEG is decoded at the largest DCT scale denominator (8, 4, 2,
  /// 1) that still gives at least `minimumSize` as shown (nil: full size); a PNG whole,
  /// transparency over the thumbnailer's gray. A photo over the thumbnailer's pixel or
  /// memory limit is refused as on import, before its pixels are decoded.
  public func originalImage(at index: Int, minimumSize: PixelSize?) throws -> DecodedPhoto {
    guard let originalAtIndex, let photoAtIndex else {
      preconditionFailure("the browser's owner set no originalAtIndex or photoAtIndex")
    }
    let record = photoAtIndex(index).record
    return try decodeOriginal(of: record, minimumSize: minimumSize) { try originalAtIndex(index) }
  }

  /// The same for the photo `record` stands for, through `originalOfRecord`; safe to call
  /// from another thread as long as the data source's loader is.
  public func originalImage(of record: PhotoRecord, minimumSize: PixelSize?) throws -> DecodedPhoto {
    guard let originalOfRecord else { preconditionFailure("the browser's owner set no originalOfRecord") }
    return try decodeOriginal(of: record, minimumSize: minimumSize) { try originalOfRecord(record) }
  }

  private func decodeOriginal(
    of record: PhotoRecord, minimumSize: PixelSize?, load: () throws -> PlaintextBytes
  ) throws -> DecodedPhoto {
    // The file itself is held whole: refused before it is decrypted when it alone is too much.
    // Saturating: a size near the end of 64 bits (only a forged record has one) is too much.
    let (needed, overflow) = Int(clamping: record.bytes).addingReportingOverflow(Thumbnailer.fixedMemory)
    try thumbnailer.checkMemory(path: record.name, bytes: overflow ? .max : needed)
    let plaintext = try load()
    return try PhotoDecoder.decode(
      plaintext, format: record.format, name: record.name, minimumSize: minimumSize, limits: thumbnailer)
  }

  // MARK: Details

  /// Keeps the details found in `decoded`, the original of the photo `record` stands for,
  /// when its file had not been read for them (a photo imported before vault read them):
  /// `storeFoundDetails` stores them.
  public func noteDetails(of record: PhotoRecord, in decoded: DecodedPhoto) {
    guard foundDetails[record.id] == nil, detailsAreKnown?(record) == false else { return }
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
    detailsRequest?(found)
    reloadRequest?()
  }
}
