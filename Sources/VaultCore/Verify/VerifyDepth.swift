/// How much of each blob `vault verify` reads.
public enum VerifyDepth: Sendable {
  /// Every byte of every blob: any damage is found.
  case full
  /// The index, and of each photo only its blobs' headers and first chunk (for an original,
  /// the record in it, checked against the index): finds missing, swapped or replaced blobs
  /// and damage at their start without reading whole originals, but not damage further in.
  case quick
}
