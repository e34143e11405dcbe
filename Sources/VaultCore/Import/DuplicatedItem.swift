/// The item a skipped duplicate duplicates, as `list` shows it: its number in the list,
/// its name and its id, so that a summary can name it.
public struct DuplicatedItem: Sendable, CustomStringConvertible {
  /// 1-based, as `list` numbers it now.
  public let number: Int
  public let name: String
  public let id: BlobID

  /// The item of `browser` (made with the default scope, as `list` is) that holds a file of
  /// this content, read from the space's catalog now; nil when the space holds none.
  public init?(contentHash: String, in space: Space, browser: PhotoBrowser) {
    guard let id = space.listedPhoto(withContentHash: contentHash) else { return nil }
    browser.reloadData()
    guard let index = browser.index(of: id), let item = browser.photo(at: index) else { return nil }
    // Named as `list` and an export name it (its shown name), not as it was imported.
    let name = browser.shownNames(of: [item]).of(item.record)
    (number, self.name, self.id) = (index + 1, name, item.record.id)
  }

  /// "12 'jolla.jpg' (id 0123abcd)", as `add` and `serve` name it.
  public var description: String { "\(number) '\(name)' (id \(id.hex.prefix(8)))" }
}
