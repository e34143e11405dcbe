import Foundation

/// The first line of a file that holds a secret (a password, a recovery key): a file, a
/// pipe, a FIFO, process substitution, or `-` for standard input.
public enum SecretLineFile {
  /// The longest first line read, in bytes.
  public static let limit = 4096

  /// How messages name such a file: `-` is standard input.
  public static func displayName(_ path: String) -> String {
    path == "-" ? "standard input" : "'\(path)'"
  }

  /// The first line of `path` (without `\n` or `\r\n`), read with read() so that pipes
  /// and FIFOs work; only as much is read as the first line needs. `kind` ("password file")
  /// names the file in errors. The caller wipes the line.
  public static func firstLine(of path: String, kind: String) throws -> [UInt8] {
    let standardInput = path == "-"
    let name = displayName(path)
    let cannotRead = {
      VaultError.invalidArgument("\(name): cannot read \(kind): \(String(cString: strerror(errno)))")
    }
    let descriptor = standardInput ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw cannotRead() }
    defer { if !standardInput { close(descriptor) } }
    var line: [UInt8] = []
    // Room for the longest line, so that growing never leaves an unwiped copy behind.
    line.reserveCapacity(limit + 512)
    var buffer = [UInt8](repeating: 0, count: 512)
    defer { buffer.wipe() }
    reading: while true {
      let count = read(descriptor, &buffer, buffer.count)
      if count < 0 {
        if errno == EINTR { continue }
        line.wipe()
        throw cannotRead()
      }
      if count == 0 { break }
      for byte in buffer[0..<count] {
        if byte == 0x0A { break reading }
        line.append(byte)
      }
      if line.count > limit {
        line.wipe()
        throw VaultError.invalidArgument("\(name): the \(kind)'s first line is longer than \(limit) bytes")
      }
    }
    if line.last == 0x0D { line.removeLast() }
    return line
  }
}
