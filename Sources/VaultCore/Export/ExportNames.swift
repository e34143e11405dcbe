extension PhotoExporter {
  /// The originals an export of `photos` writes, in order: each photo's, and a Live Photo's
  /// MOV right after its still.
  public static func originals(of photos: [PhotoModel]) -> [PhotoRecord] {
    photos.flatMap(\.records)
  }

  /// The names an export of `records` into an empty folder gives them, in order: each
  /// record's name made safe (`safeName`), and a name already given gets " (1)", " (2)"…
  /// (`vault mount` shows a folder's photos under these names).
  public static func namesInEmptyFolder(_ records: [PhotoRecord]) -> [String] {
    var taken = Set<String>()
    taken.reserveCapacity(records.count)
    return records.map { record in
      let name = safeName(record.name)
      for attempt in 0... {
        let candidate = PathComponent.numbered(name, attempt)
        if taken.insert(candidate).inserted { return candidate }
      }
      fatalError("unreachable")
    }
  }
}
