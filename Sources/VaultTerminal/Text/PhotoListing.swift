import Foundation
import VaultCore

/// The text forms of `vault list`: a table, a grid of cells, and JSON for scripts.
public enum PhotoListing {
  /// One line a photo: number, selection mark, name (the one it shows under in `names`,
  /// as an export and the mount name its file), pixel size (and "remote" for one whose
  /// original is among `remote`, offloaded), bytes, date (`shownDate`).
  /// Each column is as wide as its widest entry; names are cut only where the line would
  /// pass `columns` (never below 8 columns). Names are shown escaped (control characters).
  public static func table(
    _ photos: [(index: Int, photo: PhotoModel)], names: ShownFileNames, columns: Int, remote: Set<BlobID> = []
  ) -> [String] {
    // On a narrow terminal the time goes first, then the date, before names are cut below
    // `readableName` columns.
    let readableName = 16
    let formats: [(PhotoRecord) -> String] = [shownDate, shownDay, { _ in "" }]
    for (position, dateFormat) in formats.enumerated() {
      let (lines, nameWidth, fullNameWidth) = table(
        photos, names: names, columns: columns, remote: remote, dateFormat: dateFormat)
      let fits =
        lines.allSatisfy { DisplayWidth.of($0) < columns } && nameWidth >= min(fullNameWidth, readableName)
      if fits || position == formats.count - 1 { return lines }
    }
    return []
  }

  private static func table(
    _ photos: [(index: Int, photo: PhotoModel)], names: ShownFileNames, columns: Int, remote: Set<BlobID>,
    dateFormat: (PhotoRecord) -> String
  ) -> (lines: [String], nameWidth: Int, fullNameWidth: Int) {
    let rows = photos.map { item -> [String] in
      let record = item.photo.record
      return [
        String(item.index + 1), mark(item.photo.isSelected), TerminalSafeText.escaped(names.of(record)),
        pixelSize(item.photo, remote: remote), byteCount(record.bytes), dateFormat(record),
      ]
    }
    var widths = (0..<6).map { column in rows.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
    let fullNameWidth = widths[2]
    let others = widths.enumerated().filter { $0.offset != 2 }.map(\.element).reduce(0, +) + 5
    widths[2] = min(widths[2], max(8, columns - 1 - others))
    let lines = rows.map { row in
      let number = String(repeating: " ", count: widths[0] - row[0].count) + row[0]
      let size = String(repeating: " ", count: widths[3] - DisplayWidth.of(row[3])) + row[3]
      let bytes = String(repeating: " ", count: widths[4] - row[4].count) + row[4]
      let line = [number, row[1], DisplayWidth.pad(row[2], to: widths[2]), size, bytes, row[5]].joined(
        separator: " ")
      return row[5].isEmpty ? String(line.dropLast()) : line
    }
    return (lines, widths[2], fullNameWidth)
  }

  /// Rows of cells laid out by `layout`; each cell shows the number and selection mark,
  /// the name (as `table`), the pixel size (and "remote", as in `table`), the byte size and the day
  /// (`shownDay`), one to a line.
  public static func grid(
    _ rows: [[(index: Int, photo: PhotoModel)]], names: ShownFileNames, layout: GridLayout,
    remote: Set<BlobID> = []
  ) -> [String] {
    var lines: [String] = []
    for (rowNumber, row) in rows.enumerated() {
      if rowNumber > 0 { lines.append("") }
      let cells = row.map { item -> [String] in
        let record = item.photo.record
        return [
          "\(mark(item.photo.isSelected)) \(item.index + 1)", TerminalSafeText.escaped(names.of(record)),
          pixelSize(item.photo, remote: remote),
          byteCount(record.bytes), shownDay(record),
        ]
      }
      for line in 0..<5 {
        var text = String(repeating: " ", count: layout.margin)
        for (position, cell) in cells.enumerated() {
          if position > 0 { text += String(repeating: " ", count: layout.gutter) }
          text += DisplayWidth.pad(cell[line], to: layout.cellWidth)
        }
        lines.append(trimTrailingSpaces(text))
      }
    }
    return lines
  }

  /// A JSON array of objects: index, id, name (the name the file shows under in `names`: an
  /// export's and the mount's), importedName (the name it was imported under, only when
  /// that is another), kind (photo, video or live), bytes, width, height,
  /// format, orientation, importedAt, modifiedAt (ISO 8601, UTC), selected, albums (names, in
  /// name order); for a video, duration (seconds, a number) and codec; and when the photo's
  /// file gives them, taken (ISO 8601 as the camera's clock read, with its UTC offset when
  /// known: `CaptureTime.iso8601`), cameraMake and cameraModel; for a Live Photo (its still's
  /// record), motion: its MOV's id, name, importedName, bytes and duration; where: "remote" when its
  /// original (or its MOV's) is among `remote` (offloaded), else "local".
  public static func json(
    _ photos: [(index: Int, photo: PhotoModel)], names: ShownFileNames, remote: Set<BlobID> = []
  ) throws -> String {
    struct Item: Encodable {
      var index: Int
      var id: String
      var name: String
      var importedName: String?
      var kind: String
      var bytes: Int64
      var width: Int
      var height: Int
      var format: String
      var orientation: Int
      var importedAt: String
      var modifiedAt: String
      var selected: Bool
      var albums: [String]
      var `where`: String
      var taken: String?
      var cameraMake: String?
      var cameraModel: String?
      var duration: Double?
      var codec: String?
      /// A Live Photo's MOV.
      var motion: Motion?
    }
    struct Motion: Encodable {
      var id: String
      var name: String
      var importedName: String?
      var bytes: Int64
      var duration: Double?
    }
    let items = photos.map { item in
      let record = item.photo.record
      return Item(
        index: item.index + 1, id: record.id.hex, name: names.of(record),
        importedName: names.importedName(of: record), kind: item.photo.kind.rawValue,
        bytes: record.bytes, width: record.width,
        height: record.height, format: record.format.rawValue, orientation: record.orientation,
        importedAt: iso8601(record.importedAt), modifiedAt: iso8601(record.modifiedAt),
        selected: item.photo.isSelected, albums: item.photo.albums,
        where: item.photo.place(remote: remote).rawValue, taken: record.taken?.iso8601,
        cameraMake: record.cameraMake, cameraModel: record.cameraModel, duration: record.duration,
        codec: record.codec,
        motion: item.photo.motion.map {
          Motion(
            id: $0.id.hex, name: names.of($0), importedName: names.importedName(of: $0), bytes: $0.bytes,
            duration: $0.duration)
        })
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    if items.isEmpty { return "[]" }
    return TerminalSafeText.json(String(decoding: try encoder.encode(items), as: UTF8.self))
  }

  static func mark(_ selected: Bool) -> String { selected ? "[x]" : "[ ]" }

  /// The size in pixels, with "live" after a Live Photo's and "remote" after an offloaded
  /// one's: "4032×3024 live remote".
  static func pixelSize(_ photo: PhotoModel, remote: Set<BlobID> = []) -> String {
    pixelSize(photo.record) + (photo.kind == .live ? " live" : "")
      + (photo.place(remote: remote) == .remote ? " remote" : "")
  }

  /// The size in pixels, and a video's duration after it: "1920×1080 0:12".
  static func pixelSize(_ record: PhotoRecord) -> String {
    let size = "\(record.width)×\(record.height)"
    guard let duration = record.duration else { return size }
    return size + " " + clockDuration(duration)
  }

  /// What a grid cell's label says of a photo's kind: a video's duration ("0:12"), "live"
  /// for a Live Photo, nothing for a still; then "remote" when its original is among
  /// `remote` (offloaded).
  public static func kindMark(_ photo: PhotoModel, remote: Set<BlobID> = []) -> String? {
    let kind = photo.kind == .live ? "live" : photo.record.duration.map(clockDuration)
    guard photo.place(remote: remote) == .remote else { return kind }
    return kind.map { $0 + " remote" } ?? "remote"
  }

  /// A video's duration and codec ("0:12, h264"), from what its import recorded (its frame
  /// rate is not recorded, and no journal entry carries one).
  public static func videoDetails(_ video: PhotoRecord) -> String {
    clockDuration(video.duration ?? 0) + (video.codec.map { ", " + $0 } ?? "")
  }

  /// A Live Photo's motion: its name (as `names` shows it), size, duration and codec
  /// ("IMG_0001.MOV, 1.2 MB, 0:03, hevc"); nil for anything else.
  public static func motionDetails(_ photo: PhotoModel, names: ShownFileNames) -> String? {
    photo.motion.map { "\(names.of($0)), \(byteCount($0.bytes)), \(videoDetails($0))" }
  }

  /// A duration as a clock shows it, rounded to the second: "0:07", "12:30", "1:02:03".
  public static func clockDuration(_ seconds: Double) -> String {
    ClockDuration.text(seconds)
  }

  /// Marks an import date shown where the date taken is unknown.
  public static let importDateMark = "*"

  /// When the photo was taken ("2024-06-01 14:03", as its camera's clock read); for a
  /// photo whose file does not say (or not read yet), its import date in local time,
  /// marked: "2026-11-22 10:21*".
  public static func shownDate(_ record: PhotoRecord) -> String {
    record.taken?.shownDate ?? date(record.importedAt) + importDateMark
  }

  /// The day of `shownDate`: "2024-06-01", or "2026-11-22*".
  static func shownDay(_ record: PhotoRecord) -> String {
    record.taken?.shownDay ?? day(record.importedAt) + importDateMark
  }

  /// The camera as one name: the model alone when it already names the maker ("Canon"
  /// and "Canon EOS R5"), else both ("Apple iPhone 15"); nil when the file names neither.
  public static func camera(_ record: PhotoRecord) -> String? {
    switch (record.cameraMake, record.cameraModel) {
    case (nil, nil): return nil
    case (let make?, nil): return make
    case (nil, let model?): return model
    case (let make?, let model?):
      return model.lowercased().hasPrefix(make.lowercased()) ? model : make + " " + model
    }
  }

  /// Bytes in decimal units: 512 B, 3.4 kB, 2.1 MB, 1.2 GB.
  public static func byteCount(_ bytes: Int64) -> String {
    if bytes < 1000 { return "\(bytes) B" }
    let units = ["kB", "MB", "GB", "TB"]
    var value = Double(bytes) / 1000
    var unit = 0
    while value >= 999.95 && unit < units.count - 1 {
      value /= 1000
      unit += 1
    }
    return String(format: "%.1f %@", value, units[unit])
  }

  /// A local date and time: 2026-11-22 10:21.
  public static func date(_ time: Timestamp) -> String { localTime(time, format: "%Y-%m-%d %H:%M") }
  static func day(_ time: Timestamp) -> String { localTime(time, format: "%Y-%m-%d") }

  /// `time` in the local time zone, as strftime's `format` writes it.
  public static func localTime(_ time: Timestamp, format: String) -> String {
    var seconds = time_t(time.seconds)
    var parts = tm()
    localtime_r(&seconds, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let length = strftime(&buffer, buffer.count, format, &parts)
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  static func iso8601(_ time: Timestamp) -> String {
    var seconds = time_t(time.seconds)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    var buffer = [CChar](repeating: 0, count: 64)
    let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  private static func trimTrailingSpaces(_ text: String) -> String {
    var result = text
    while result.last == " " { result.removeLast() }
    return result
  }
}
