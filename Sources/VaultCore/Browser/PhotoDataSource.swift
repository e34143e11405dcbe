/// What a `PhotoBrowser` is given whole when it is made (Agony's SGPhotoBrowser blocks):
/// where its photos come from and where its changes go. Every block a browser needs has no
/// default, so a data source that leaves one out does not compile; the few with a default
/// are shortcuts or hints that the browser can do without.
///
/// Loaders take the photo's record (its id, size and content hash, what the bytes are
/// checked against), never an index: indexes shift when photos are deleted, and the viewer
/// decodes ahead on another thread. A loader must therefore be safe to call from another
/// thread, as the space's are (they read only the blob and the key).
public struct PhotoDataSource {
  /// The number of photos. Read again every time: the browser keeps no count.
  public var numberOfPhotos: () -> Int
  /// The photo at a 0-based index.
  public var photoAtIndex: (Int) -> PhotoModel
  /// Asks the owner to re-read its photos (to redraw them); called after each change the
  /// browser asks for.
  public var reload: () -> Void
  /// The decrypted thumbnail (a JPEG) of a photo; the caller wipes it.
  public var thumbnail: @Sendable (PhotoRecord) throws -> [UInt8]
  /// Hands a photo's decrypted original to `content` chunk by chunk, in order, and throws
  /// if it turns out damaged (the last chunk and the content hash are checked before this
  /// returns): what an export streams into a file and the browser decodes from memory.
  public var original:
    @Sendable (PhotoRecord, _ content: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
  /// Sets the selection of photos by 0-based index, all in one change.
  public var selectionRequest: ([(index: Int, selected: Bool)]) throws -> Void
  /// Moves photos to Recently Deleted (their files stay until it is emptied or they expire).
  public var deletionRequest: ([PhotoModel]) throws -> Void
  /// The items of Recently Deleted, most recently deleted first (what the mount shows
  /// there). None by default.
  public var trashedPhotos: () -> [PhotoModel] = { [] }
  /// Deletes photos for good, originals and thumbnails. Nil by default: the browser then
  /// refuses (a data source without a trash has no second kind of deletion).
  public var permanentDeletionRequest: (([PhotoModel]) throws -> Void)? = nil
  /// Puts photos in the album of a name; makes it when there is none if `creating`, else
  /// throws `.noSuchAlbum`.
  public var albumAdditionRequest:
    (_ name: String, _ photos: [PhotoModel], _ creating: Bool) throws -> AlbumAddition
  /// Takes photos out of the album of a name; returns how many were in it.
  public var albumRemovalRequest: (_ name: String, _ photos: [PhotoModel]) throws -> Int
  /// Stores details that decoding originals read, by photo id; best effort (it must not
  /// hold up or fail what is being shown: the details are read again another time).
  public var detailsRequest: ([BlobID: PhotoDetails]) -> Void
  /// Whether a photo's file has been read for its date taken and camera; photos imported
  /// before vault read them have not. By default every photo has.
  public var detailsAreKnown: (PhotoRecord) -> Bool = { _ in true }
  /// Changes whenever the photos listed, their order or their selection may have changed.
  /// By default it changes at every read: the list may always have changed.
  public var listRevision: () -> Int = PhotoDataSource.everChanging()
  /// The index of the photo with an id, if it is listed. By default `photoAtIndex` is
  /// asked for each photo in turn; a data source with a quicker way sets its own.
  public var indexOfPhoto: (BlobID) -> Int?
  /// The indexes of the selected photos, in order. By default each photo's model says; a
  /// data source that knows without making the models (the space does, in one pass over
  /// its list) sets its own, so that listing the selected photos of a big space makes
  /// models only for them.
  public var selectedIndexes: () -> [Int]
  /// The id of the photo at an index. By default its model says; the space reads it
  /// without making the model (`select` compares ids before and after).
  public var idAtIndex: (Int) -> BlobID
  /// Opens a photo's original for reading byte ranges (a video played, its still shown, a
  /// file of the mount), so that it is never decrypted whole. With `recordCheckedAtEnd`, the
  /// blob's record may be checked when a read first reaches the original's end rather than
  /// on opening (a reader of whole files: the mount). Nil by default: videos are then read
  /// whole.
  public var originalRanges:
    (@Sendable (PhotoRecord, _ recordCheckedAtEnd: Bool) throws -> OriginalRangeReader)?
  /// Reads the photos again from where they are kept, for an owner that stays open (the
  /// viewer, the mount), waiting at most `waitingAtMost` seconds (nil: as long as it takes)
  /// for a writer that holds them, then reloads. When they no longer read whole, returns
  /// why, without reloading: the owner chooses to show what it had (`reload` shows what is
  /// left). By default only reloads.
  public var readAgain: (_ waitingAtMost: Double?) throws -> VaultError?
  /// The album of a name (as an album addition or removal would find it), if there is one.
  /// By default there is none.
  public var albumNamed: (String) -> Album? = { _ in nil }
  /// Every album, in name order. By default there is none.
  public var albums: () -> [Album] = { [] }
  /// Every album, in name order, with its newest photo (what `vault album list` shows). By
  /// default there is none.
  public var albumSummaries: () -> [AlbumSummary] = { [] }
  /// Makes, renames or deletes an album (see `AlbumNaming`); returns the album as it was
  /// before the change (nil for one made). By default albums cannot be changed.
  public var albumNamingRequest: (AlbumNaming) throws -> Album? = { _ in
    throw VaultError.invalidArgument("these photos have no albums to change")
  }
  /// Every import of the photo `id` is an import of (a photo imported on copies changed
  /// apart, see docs/SYNC.md), the listed one first. By default each photo is imported once.
  public var importsOfPhoto: (BlobID) -> [BlobID] = { [$0] }
  /// The name each file shows under in the mount and in an export (see `ShownNames`), by
  /// id. By default none is recorded: each file shows its own name, numbered where taken.
  public var shownNames: () -> [BlobID: String] = { [:] }
  /// The names of the files of some records, as `shownNames` gives them, and maybe more: a
  /// data source that can name a few files for less than all (the space, in a big space)
  /// sets it. Nil by default: `shownNames` is asked.
  public var shownNamesOfRecords: (([PhotoRecord]) -> [BlobID: String])? = nil
  /// The files whose original is on the space's remote (`vault offload`), by id. By
  /// default every original is on the disk.
  public var remoteOriginals: () -> Set<BlobID> = { [] }

  public init(
    numberOfPhotos: @escaping () -> Int, photoAtIndex: @escaping (Int) -> PhotoModel,
    reload: @escaping () -> Void, thumbnail: @escaping @Sendable (PhotoRecord) throws -> [UInt8],
    original:
      @escaping @Sendable (PhotoRecord, _ content: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
    selectionRequest: @escaping ([(index: Int, selected: Bool)]) throws -> Void,
    deletionRequest: @escaping ([PhotoModel]) throws -> Void,
    albumAdditionRequest:
      @escaping (_ name: String, _ photos: [PhotoModel], _ creating: Bool) throws ->
      AlbumAddition,
    albumRemovalRequest: @escaping (_ name: String, _ photos: [PhotoModel]) throws -> Int,
    detailsRequest: @escaping ([BlobID: PhotoDetails]) -> Void
  ) {
    self.numberOfPhotos = numberOfPhotos
    self.photoAtIndex = photoAtIndex
    self.reload = reload
    self.thumbnail = thumbnail
    self.original = original
    self.selectionRequest = selectionRequest
    self.deletionRequest = deletionRequest
    self.albumAdditionRequest = albumAdditionRequest
    self.albumRemovalRequest = albumRemovalRequest
    self.detailsRequest = detailsRequest
    indexOfPhoto = { id in (0..<numberOfPhotos()).first { photoAtIndex($0).record.id == id } }
    selectedIndexes = { (0..<numberOfPhotos()).filter { photoAtIndex($0).isSelected } }
    idAtIndex = { photoAtIndex($0).record.id }
    readAgain = { _ in
      reload()
      return nil
    }
  }

  /// A revision that is new at every read.
  private static func everChanging() -> () -> Int {
    var revision = 0
    return {
      revision &+= 1
      return revision
    }
  }
}
