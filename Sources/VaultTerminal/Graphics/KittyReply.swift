/// kitty's answer to a graphics command (`ESC _G i=3,p=1;ENOENT:… ESC \`), as the key
/// decoder keeps it: without the `G`. The viewer asks only for failures (`q=1`), of its
/// placements: a placement of an image kitty no longer holds (it evicts images past its
/// storage quota) fails with ENOENT, and the image is sent again.
struct KittyReply: Equatable {
  /// The image the command named (`i=`), if the reply says.
  let imageID: UInt32?
  /// `OK`, or an error code and its text (`ENOENT:Put command refers to…`).
  let message: String

  var isError: Bool { message != "OK" }

  /// The reply in `text`, or nil when it is not one (no `;` after the keys).
  init?(_ text: String) {
    guard let separator = text.firstIndex(of: ";") else { return nil }
    var imageID: UInt32?
    for field in text[..<separator].split(separator: ",") {
      let parts = field.split(separator: "=", maxSplits: 1)
      if parts.count == 2, parts[0] == "i" { imageID = UInt32(parts[1]) }
    }
    self.imageID = imageID
    message = String(text[text.index(after: separator)...])
  }

  /// The error's code (`ENOENT`), for a message on the status line: the text after it is
  /// kitty's own and may be long.
  var code: String { String(message.prefix { $0 != ":" }.prefix(16)) }
}
