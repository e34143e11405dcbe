import Foundation
import Synchronization

// The marks every writer leaves while it works, so that the next writer knows to tidy after a killed one.
extension Space {
  /// The marks of writers not yet closed, for `removeWriterMarks`.
  static let liveWriterMarks = Mutex<Set<String>>([])

  /// Removes the marks of every space still open for writing: a command calls it once it
  /// is over (its writes done or undone), whoever still holds the space.
  public static func removeWriterMarks() {
    liveWriterMarks.withLock { marks in
      for path in marks { unlink(path) }
      marks.removeAll()
    }
  }

  /// Whether a writer was killed here (its mark, or another temporary file, is left), or an
  /// upgrade was cut short after its journal was in place (format 1's index is left beside
  /// it): then the writer that opens the space next tidies first.
  var needsTidying: Bool {
    let names = (try? listVaultFolder(directory, followingLink: true)) ?? []
    return names.contains { $0.hasPrefix(TemporaryFile.prefix) }
      || (formatVersion == 2 && names.contains(Self.indexFile))
  }

  /// Leaves this writer's mark before anything is written. It is not flushed: a killed
  /// process leaves it anyway, and after a power cut that lost it the next writer only
  /// leaves for `vault verify` what it would have tidied (orphans, a torn segment it then
  /// keeps), losing nothing; a flush would cost every write command.
  func markWriting() throws {
    precondition(access == .write && writerMark == nil)
    let name = Self.writerMarkPrefix + hexString(Sodium.randomBytes(8))
    let descriptor = open(directory + "/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw VaultError.posix(directory) }
    close(descriptor)
    writerMark = name
    Self.liveWriterMarks.withLock { _ = $0.insert(directory + "/" + name) }
  }

  /// Removes this writer's mark from the space's folder, now named `folder` (a password
  /// change renamed it under the lock): the mark's recorded path is stale.
  func removeWriterMark(movedTo folder: String) {
    guard let writerMark else { return }
    unlink(folder + "/" + writerMark)
    Self.liveWriterMarks.withLock { _ = $0.remove(directory + "/" + writerMark) }
    self.writerMark = nil
  }
}
