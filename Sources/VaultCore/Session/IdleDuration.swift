/// How `vault serve --idle` and `vault unlock --for` and `--max` are written: `30s`, `10m`,
/// `1h`, `2d`, a number of seconds, or `0` for never.
public enum IdleDuration {
  /// The duration in seconds; nil when `text` does not parse.
  public static func seconds(_ text: String) -> Double? {
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
    var digits = Substring(text)
    var unit = 1.0
    if let last = text.last, let multiplier = units[last] {
      digits = digits.dropLast()
      unit = multiplier
    }
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits),
      value <= 1_000_000
    else { return nil }
    return Double(value) * unit
  }

  /// 45s, 15m, 90m, 8h, 2d: the largest whole unit, one number and one unit, so that a
  /// printed duration can be given back.
  public static func text(_ seconds: Int) -> String {
    if seconds % 86400 == 0 { return "\(seconds / 86400)d" }
    if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
    if seconds % 60 == 0 { return "\(seconds / 60)m" }
    return "\(seconds)s"
  }
}
