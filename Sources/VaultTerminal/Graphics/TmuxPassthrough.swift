import VaultCore

/// tmux's passthrough (tmux 3.3, `allow-passthrough on`): an escape sequence wrapped as
/// `ESC P tmux ; <the sequence, every ESC doubled> ESC \` reaches the terminal tmux runs in
/// as it is, where tmux would otherwise keep it (a kitty command became the pane's title).
enum TmuxPassthrough {
  /// How many bytes one passthrough gathers before the next sequence starts another: tmux
  /// drops a DCS longer than its input buffer (1 MiB in 3.3) whole.
  static let pieceSize = 65536

  static let start: [UInt8] = Array("\u{1B}Ptmux;".utf8)
  static let end: [UInt8] = [0x1B, UInt8(ascii: "\\")]

  /// `bytes` (whole escape sequences) in passthroughs, each ending where a sequence ends
  /// once it holds `pieceSize` bytes: after each, tmux resets the outside terminal's
  /// attributes and cursor, which inside a sequence would break it. The buffer has room for
  /// `spareCapacity` more bytes.
  static func wrapped(_ bytes: [UInt8], spareCapacity: Int = 0) -> [UInt8] {
    let escapes = bytes.reduce(0) { $0 + ($1 == 0x1B ? 1 : 0) }
    let pieces = bytes.count / pieceSize + 1
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count + escapes + pieces * (start.count + end.count) + spareCapacity)
    guard !bytes.isEmpty else { return output }
    output += start
    var pieceStart = 0
    for (offset, byte) in bytes.enumerated() {
      if byte == 0x1B, offset - pieceStart >= pieceSize, startsSequence(bytes, at: offset) {
        output += end
        output += start
        pieceStart = offset
      }
      if byte == 0x1B { output.append(0x1B) }
      output.append(byte)
    }
    output += end
    return output
  }

  /// Whether the ESC at `offset` starts a sequence (rather than ending one: `ESC \`).
  private static func startsSequence(_ bytes: [UInt8], at offset: Int) -> Bool {
    offset + 1 < bytes.count && bytes[offset + 1] != UInt8(ascii: "\\")
  }

  /// Replaces `bytes` with its passthroughs (with room for `spareCapacity` more bytes),
  /// zeroing the bytes replaced: an upload holds a photo's pixels.
  static func wrap(_ bytes: inout [UInt8], spareCapacity: Int = 0) {
    let output = wrapped(bytes, spareCapacity: spareCapacity)
    bytes.wipe()
    bytes = output
  }
}
