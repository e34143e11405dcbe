extension PhotoExporter {
  /// The originals an export of `photos` writes, in order: each photo's, and a Live Photo's
  /// MOV right after its still.
  public static func originals(of photos: [PhotoModel]) -> [PhotoRecord] {
    photos.flatMap(\.records)
  }

  /// The names an export of `records` into an empty folder gives them, in order: each
  /// record's shown name (`shown`, see `ShownNames`: unique in the space, so whatever else
  /// the folder holds), else its name made safe (`safeName`), and a name already given
  /// gets " (1)", " (2)"… (`vault mount` shows a folder's photos under these names).
  public static func namesInEmptyFolder(_ records: [PhotoRecord], shown: [BlobID: String] = [:]) -> [String] {
    var taken = Set<String>()
    taken.reserveCapacity(records.count)
    return records.map { record in
      ShownNames.firstFree(shown[record.id] ?? safeName(record.name), in: &taken)
    }
  }
}
