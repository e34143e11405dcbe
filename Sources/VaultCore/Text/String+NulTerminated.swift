extension String {
  /// The text a C function wrote into `buffer` (an error message, a key's description), up
  /// to its terminating zero or the end of the buffer, invalid UTF-8 repaired.
  package init(nulTerminated buffer: [CChar]) {
    self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
