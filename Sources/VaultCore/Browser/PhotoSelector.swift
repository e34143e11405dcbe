/// Photos as users name them: numbers from 1 in import order (`3`), ranges (`5-7`), open
/// ranges (`100-`), comma lists (`2-3,9`), and ids or unique id prefixes of at least 6 hex
/// digits (from `list --json`), which do not shift when photos before them are deleted.
public enum PhotoSelector {
  /// One term of a choice, as parsed before the space is opened.
  public enum Term: Equatable, Sendable {
    /// Numbers `first...last` (1-based); `last` nil means "to the last photo".
    case numbers(first: Int, last: Int?)
    /// A whole id or an id prefix (lowercase hex). Six digits or more not starting with 0
    /// could also be a number: see `positions`.
    case id(String)

    /// Whether the term names one photo at most (a number or an id, not a range).
    public var namesOnePhoto: Bool {
      switch self {
      case .numbers(let first, let last): return last == first
      case .id: return true
      }
    }
  }

  /// The shortest id prefix accepted.
  public static let minimumPrefixLength = 6

  /// Parses `arguments` (each may be a comma list) without looking at the space, so that a
  /// typo is reported before the password is asked for.
  /// A lone `--` (the end of options) is passed over.
  public static func parse(_ arguments: [String]) throws -> [Term] {
    try arguments.filter { $0 != "--" }.flatMap { argument in
      let items = argument.split(separator: ",", omittingEmptySubsequences: false)
      if items.count > 1, items.contains(where: \.isEmpty) {
        throw VaultError.invalidSelector(argument, reason: "an empty item in the list")
      }
      return try items.map { try term(String($0)) }
    }
  }

  /// The 0-based positions chosen by `terms` among `ids` (the photos' ids in order), in
  /// the order given, without repeats. Throws for numbers past the last photo and for ids
  /// that match no photo or several. Six digits or more that do not start with 0 are a
  /// photo number when that photo exists and no id starts with them, an id prefix when
  /// no such photo exists, and an error when they could be both.
  public static func positions(_ terms: [Term], ids: [String]) throws -> [Int] {
    try positions(terms, count: ids.count) { ids[$0] }
  }

  /// The same, for `count` photos whose ids `idAt` gives: asked only when a term is an id,
  /// so numbers in a big space cost nothing per photo.
  public static func positions(_ terms: [Term], count: Int, idAt: (Int) -> String) throws -> [Int] {
    try positions(terms, count: count, idsAt: { [idAt($0)] })
  }

  /// The same, for photos known by several ids each (a Live Photo by its still's and its
  /// MOV's): an id of either chooses it.
  public static func positions(_ terms: [Term], count: Int, idsAt: (Int) -> [String]) throws -> [Int] {
    var result: [Int] = []
    var seen = Set<Int>()
    for term in terms {
      for position in try resolve(term, count: count, idsAt: idsAt) where seen.insert(position).inserted {
        result.append(position)
      }
    }
    return result
  }

  private static func term(_ text: String) throws -> Term {
    let isHex = { (c: Character) in c.isASCII && c.isHexDigit }
    let isDigit = { (c: Character) in c.isASCII && c.isNumber }
    if text.isEmpty { throw VaultError.invalidSelector(text, reason: "an empty photo number") }
    if text.hasPrefix("--") { throw VaultError.invalidSelector(text, reason: "no such option") }
    if text.hasPrefix("-") {
      throw VaultError.invalidSelector(text, reason: "photos are numbered from 1; a range is written 2-5")
    }
    if text.count >= minimumPrefixLength, text.allSatisfy(isHex), !text.allSatisfy(isDigit) {
      return .id(text.lowercased())
    }
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count <= 2, parts.allSatisfy({ $0.allSatisfy(isDigit) }), !parts[0].isEmpty else {
      throw VaultError.invalidSelector(
        text,
        reason: "not a photo number, range (5-7, 100-) or id of at least \(minimumPrefixLength) hex digits")
    }
    guard let first = Int(parts[0]) else {
      throw VaultError.invalidSelector(text, reason: "number too large")
    }
    if first == 0 {
      throw VaultError.invalidSelector(text, reason: "photos are numbered from 1")
    }
    if parts.count == 1 {
      return text.count >= minimumPrefixLength ? .id(text) : .numbers(first: first, last: first)
    }
    if parts[1].isEmpty { return .numbers(first: first, last: nil) }
    guard let last = Int(parts[1]) else { throw VaultError.invalidSelector(text, reason: "number too large") }
    if last < first {
      throw VaultError.invalidSelector(text, reason: "the range runs backwards; write \(last)-\(first)")
    }
    return .numbers(first: first, last: last)
  }

  private static func resolve(_ term: Term, count: Int, idsAt: (Int) -> [String]) throws -> [Int] {
    switch term {
    case .numbers(let first, let last):
      guard first <= count else { throw VaultError.indexOutOfRange(index: first, count: count) }
      let end = last ?? count
      guard end <= count else { throw VaultError.indexOutOfRange(index: end, count: count) }
      return Array((first - 1)...(end - 1))
    case .id(let prefix):
      let matches = (0..<count).filter { idsAt($0).contains { $0.hasPrefix(prefix) } }
      // Six digits or more, not starting with 0: a photo number when that photo exists,
      // unless it also starts an id; then neither is guessed.
      if !prefix.hasPrefix("0"), prefix.allSatisfy(\.isNumber), let number = Int(prefix) {
        let isNumber = number >= 1 && number <= count
        if isNumber && matches.isEmpty { return [number - 1] }
        if isNumber { throw VaultError.numberOrID(prefix) }
        if matches.isEmpty { throw VaultError.indexOutOfRange(index: number, count: count) }
      }
      if matches.count == 1 { return matches }
      throw VaultError.ambiguousPhotoID(prefix: prefix, matches: matches.count)
    }
  }
}
