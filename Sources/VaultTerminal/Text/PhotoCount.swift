/// "1 photo", "3 photos": as the viewer's messages and the commands' summaries say it.
public func photos(_ count: Int) -> String { "\(count) photo\(count == 1 ? "" : "s")" }
