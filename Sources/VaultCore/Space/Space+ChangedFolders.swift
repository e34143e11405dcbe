extension Space {
  /// The folders another command's writes to this space change, for a reader that watches
  /// them to read the space again (`vault mount`): the space's folder, where format 1 keeps
  /// its index, and its journal.
  public var foldersChangedByWriters: [String] {
    [directory, journalDirectory]
  }
}
