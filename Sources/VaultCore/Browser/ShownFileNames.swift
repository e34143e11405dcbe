/// The names the files of a space show under (`ShownNames`: the mount's and an export's
/// file names), looked up by record: what every command prints for a file, so that a name
/// `vault list` shows is the name of that file on disk after an export or in the mount.
public struct ShownFileNames: Sendable {
  private let names: [BlobID: String]

  /// `names` by file id; a file not among them shows its own name made safe (as an export
  /// of a data source without shown names names it).
  public init(_ names: [BlobID: String] = [:]) {
    self.names = names
  }

  /// The name `record`'s file shows under.
  public func of(_ record: PhotoRecord) -> String {
    of(record.id, imported: record.name)
  }

  /// The name the file `id`, imported under `name`, shows under.
  public func of(_ id: BlobID, imported name: String) -> String {
    names[id] ?? PhotoExporter.safeName(name)
  }

  /// The name `record`'s file was imported under, when it shows under another one (its
  /// name was taken, or was not safe as a file name); nil when it shows its own.
  public func importedName(of record: PhotoRecord) -> String? {
    of(record) == record.name ? nil : record.name
  }

  /// A photo's name; a Live Photo's names both its files: "IMG_0001.HEIC + IMG_0001.MOV (live)".
  public func item(_ photo: PhotoModel) -> String {
    photo.records.map(of).joined(separator: " + ") + (photo.kind == .live ? " (live)" : "")
  }
}

extension PhotoBrowser {
  /// The names the browser's files show under, as its data source gives them now.
  public var shownNames: ShownFileNames { ShownFileNames(dataSource.shownNames()) }

  /// The names the files of `photos` (both of a Live Photo's) show under, found for less
  /// than `shownNames` where the data source can; only for those files.
  public func shownNames(of photos: [PhotoModel]) -> ShownFileNames {
    guard let named = dataSource.shownNamesOfRecords else { return shownNames }
    return ShownFileNames(named(photos.flatMap(\.records)))
  }
}

extension SpaceCatalog {
  /// The names the catalog's files (listed and in Recently Deleted) show under.
  public var shownFileNames: ShownFileNames { ShownFileNames(shownNames()) }
}
