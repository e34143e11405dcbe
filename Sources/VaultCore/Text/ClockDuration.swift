/// A duration as a clock shows it, rounded to the second: "0:07", "12:30", "1:02:03". The
/// listing's, and the decoder's warning for a video cut short.
public enum ClockDuration {
  public static func text(_ seconds: Double) -> String {
    let total = Int(seconds.rounded())
    let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
    let secondsText = rest < 10 ? "0\(rest)" : "\(rest)"
    if hours == 0 { return "\(minutes):\(secondsText)" }
    return "\(hours):\(minutes < 10 ? "0" : "")\(minutes):\(secondsText)"
  }
}
