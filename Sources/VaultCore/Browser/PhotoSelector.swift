/// Photo numbers as users type them: `3`, `5-7`, numbered from 1 in import order.
public enum PhotoSelector {
  /// The 0-based positions named by `arguments`, in the order given, without repeats.
  /// Throws for text that is not a number or range, and for numbers outside `1...count`.
  public static func positions(_ arguments: [String], count: Int) throws -> [Int] {
    var result: [Int] = []
    var seen = Set<Int>()
    for argument in arguments {
      for position in try range(argument, count: count) where seen.insert(position).inserted {
        result.append(position)
      }
    }
    return result
  }

  private static func range(_ text: String, count: Int) throws -> ClosedRange<Int> {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }),
      let first = Int(parts[0]), let last = Int(parts[parts.count - 1]), first >= 1, first <= last
    else {
      throw VaultError.invalidSelector(text)
    }
    guard first <= count else { throw VaultError.indexOutOfRange(index: first, count: count) }
    guard last <= count else { throw VaultError.indexOutOfRange(index: last, count: count) }
    return (first - 1)...(last - 1)
  }
}
