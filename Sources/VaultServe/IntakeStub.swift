// TEMPORARY: the contract's UploadIntake API, until branch issue11-intake is merged.
// Deleted before that merge; nothing here is real.
import Foundation
import VaultCore

public final class UploadIntake: @unchecked Sendable {
  public init(
    space: Space, maxUploadBytes: Int, memoryBudget: Int = 256 << 20,
    thumbnailer: Thumbnailer = Thumbnailer()
  ) {
    self.maxUploadBytes = maxUploadBytes
  }
  public let maxUploadBytes: Int
  public func begin(name: String, length: Int, modifiedAt: Timestamp?, waitingAtMost: Double = 60)
    async throws -> PhotoUpload
  {
    if length > maxUploadBytes { throw VaultError.invalidArgument("\(name): too large") }
    return PhotoUpload(name: name, length: length)
  }
}

public final class PhotoUpload: @unchecked Sendable {
  public let name: String
  public let length: Int
  public private(set) var received = 0
  init(name: String, length: Int) {
    self.name = name
    self.length = length
  }
  public func append(_ bytes: UnsafeRawBufferPointer) throws {
    received += bytes.count
    if received > length { throw VaultError.invalidArgument("\(name): more bytes than announced") }
  }
  public func finish() throws -> UploadOutcome {
    throw VaultError.unsupportedFormat(path: name)
  }
  public func cancel() {}
}

public enum UploadOutcome: Sendable {
  case added(PhotoRecord)
  case duplicate
}
