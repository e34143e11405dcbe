/// What scoping and sorting read of a list of photos, one key at a time: a big space's
/// list (`PhotoEntries`) is scoped and sorted by date or import order without decoding a
/// single record.
protocol PhotoKeyList {
  var count: Int { get }
  func id(at position: Int) -> BlobID
  func importedAt(at position: Int) -> Timestamp
  func taken(at position: Int) -> CaptureTime?
  /// The whole record: what sorting by name or size needs.
  func record(at position: Int) -> PhotoRecord
}

extension PhotoEntries: PhotoKeyList {}

extension Array: PhotoKeyList where Element == IndexEntry {
  func id(at position: Int) -> BlobID { self[position].record.id }
  func importedAt(at position: Int) -> Timestamp { self[position].record.importedAt }
  func taken(at position: Int) -> CaptureTime? { self[position].record.taken }
  func record(at position: Int) -> PhotoRecord { self[position].record }
}
