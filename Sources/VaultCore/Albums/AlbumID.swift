/// An album's id: 16 random bytes made with the album, so that a rename is a new name for
/// the same album, and two albums made apart in synced copies never share one.
package struct AlbumID: Hashable, Comparable, Sendable, CustomStringConvertible {
  static let length = BlobID.length

  /// The same 16 bytes, compared and written as a photo's id is.
  private let raw: BlobID

  package init(_ raw: BlobID) { self.raw = raw }

  static func random() -> AlbumID { AlbumID(.random()) }

  var bytes: [UInt8] { raw.bytes }
  package var description: String { raw.hex }

  package static func < (left: AlbumID, right: AlbumID) -> Bool { left.raw < right.raw }
}
