extension PhotoModel {
  /// Where the item's originals are: remote when any of its files' is (a Live Photo's MOV
  /// offloaded alone too), given the ids whose originals are remote.
  public func place(remote: Set<BlobID>) -> OriginalPlace {
    records.contains { remote.contains($0.id) } ? .remote : .local
  }
}
