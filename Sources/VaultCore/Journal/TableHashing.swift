/// How the journal's open-addressed tables (`PositionIndex` by id, `DuplicateImports` by
/// content hash) key their slots: NH (UMAC) over pairs of words, each word plus a key drawn
/// at random when the process starts, so that no journal can choose what lands together;
/// then a finalizer's mixing (MurmurHash3's), so that the bits a slot is chosen by depend
/// on every bit.
enum TableHashing {
  /// NH of one pair: `(a + key0) × (b + key1)`, to 128 bits.
  static func pair(_ a: UInt64, _ b: UInt64, keys: (UInt64, UInt64)) -> (high: UInt64, low: UInt64) {
    (a &+ keys.0).multipliedFullWidth(by: b &+ keys.1)
  }

  static func mixed(_ value: UInt64) -> UInt64 {
    var hash = value
    hash ^= hash >> 33
    hash &*= 0xff51_afd7_ed55_8ccd
    hash ^= hash >> 33
    return hash
  }
}
