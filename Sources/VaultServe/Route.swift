import Foundation
import HTTPTypes
import VaultCore

/// Where a request goes, from its method and raw target (percent-encoding untouched, so
/// `%2F`, `..` and `//` never match anything but themselves).
enum Route: Equatable {
  /// `GET /<token>/`
  case page
  /// `POST /<token>/upload?<query>`
  case upload(query: Substring)
  /// Anything else. `countsAsGuess` when the token was wrong (as opposed to a right token
  /// with a wrong method or path, or a request browsers send on their own); `showsToken`
  /// when the token was right.
  case notFound(countsAsGuess: Bool, showsToken: Bool = false)

  /// What browsers fetch without being asked: not a guess at the token.
  static let automaticRequests: Set<Substring> = [
    "/favicon.ico", "/apple-touch-icon.png", "/apple-touch-icon-precomposed.png",
  ]

  init(method: HTTPRequest.Method, target: String?, token: AccessToken) {
    guard let target, target.hasPrefix("/") else {
      self = .notFound(countsAsGuess: true)
      return
    }
    let path: Substring
    let query: Substring?
    if let mark = target.firstIndex(of: "?") {
      path = target[..<mark]
      query = target[target.index(after: mark)...]
    } else {
      path = target[...]
      query = nil
    }
    let afterSlash = path.dropFirst()
    let segment = afterSlash.prefix { $0 != "/" }
    guard token.matches(segment.utf8) else {
      self = .notFound(countsAsGuess: !(method == .get && Self.automaticRequests.contains(path)))
      return
    }
    switch (method, afterSlash.dropFirst(segment.count), query) {
    case (.get, "/", nil):
      self = .page
    case (.post, "/upload", let query):
      self = .upload(query: query ?? "")
    default:
      self = .notFound(countsAsGuess: false, showsToken: true)
    }
  }
}

/// The query of an upload: `name=<percent-encoded>&modified=<ms since 1970>`.
struct UploadParameters: Equatable {
  var name: String
  var modifiedAt: Timestamp?

  /// Nil when the name is missing or unusable, or a parameter is given twice or does not
  /// parse.
  init?(query: Substring) {
    var name: String?
    var modified: Substring?
    for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let value = parts.count == 2 ? parts[1] : ""
      switch parts[0] {
      case "name":
        guard name == nil, let decoded = String(value).removingPercentEncoding else { return nil }
        name = decoded
      case "modified":
        guard modified == nil else { return nil }
        modified = value
      default:
        continue
      }
    }
    // As the intake takes it, so that the terminal and the page name the upload as the
    // vault will.
    guard let name, let plain = try? UploadIntake.plainFileName(name) else { return nil }
    self.name = plain
    if let modified {
      guard let milliseconds = Int64(modified), abs(milliseconds) < 1_000_000_000_000_000 else { return nil }
      let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
      modifiedAt =
        remainder < 0
        ? Timestamp(seconds: seconds - 1, nanoseconds: Int32(remainder + 1000) * 1_000_000)
        : Timestamp(seconds: seconds, nanoseconds: Int32(remainder) * 1_000_000)
    } else {
      modifiedAt = nil
    }
  }
}
