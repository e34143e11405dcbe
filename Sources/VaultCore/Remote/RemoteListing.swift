import Foundation

/// A file on a remote, as `rclone lsjson` lists it.
public struct RemoteFile: Equatable, Sendable {
  public var size: Int64
  /// Its MD5 (lowercase hex) when it was asked for and the backend gives one for it.
  public var md5: String?
}

extension Rclone {
  /// The files below `folder` of `remote` by path relative to it (`rclone lsjson -R`), with
  /// their MD5 when `hashes`; nil when the folder is not there.
  func listFiles(in folder: String, remote: RemoteLocation, hashes: Bool = false) throws -> [String:
    RemoteFile]?
  {
    let options =
      ["-R", "--files-only", "--no-mimetype", "--no-modtime"]
      + (hashes ? ["--hash", "--hash-type", "MD5"] : [])
    var files: [String: RemoteFile] = [:]
    for entry in try listing(options, folder, remote: remote) ?? [] {
      guard let path = entry["Path"] as? String, let size = (entry["Size"] as? NSNumber)?.int64Value else {
        continue
      }
      let md5 = (entry["Hashes"] as? [String: Any])?["md5"] as? String
      files[path] = RemoteFile(size: size, md5: md5.flatMap { $0.isEmpty ? nil : $0.lowercased() })
    }
    return files
  }

  /// The most `rclone lsjson` may print (some 200 bytes a file with its hash: over a million
  /// files); more is an error, not memory without bound.
  static let listingLimit = 256 << 20

  /// `rclone lsjson OPTIONS FOLDER`'s entries; nil when the folder is not there.
  func listing(_ options: [String], _ folder: String, remote: RemoteLocation) throws -> [[String:
    Any]]?
  {
    let output: [UInt8]
    do {
      output = try run("lsjson", options, [folder], remote: remote.text, outputLimit: Self.listingLimit)
    } catch RemoteError.notFound {
      return nil
    }
    guard let entries = try? JSONSerialization.jsonObject(with: Data(output)) as? [[String: Any]] else {
      throw RemoteError.failed(remote: remote.text, reason: "rclone's listing of \(folder) is not JSON")
    }
    return entries
  }
}
