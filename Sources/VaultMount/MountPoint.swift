import Foundation
import VaultCore

/// Where a mount may go, and whether FUSE can mount here at all: checked before the
/// password is asked for, so that a mount that cannot happen costs no key derivation.
public enum MountPoint {
  /// Throws `.io` naming `path` unless it is an existing, empty folder of this user's (not
  /// a link): a mount hides what a folder holds, and one over another user's folder would
  /// show them our photos.
  public static func check(_ path: String) throws {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      throw VaultError.io(
        path: path, reason: errno == ENOENT ? "no such folder" : String(cString: strerror(errno)))
    }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw VaultError.io(path: path, reason: "not a folder (a mount goes on an empty folder of yours)")
    }
    guard info.st_uid == getuid() else {
      throw VaultError.io(
        path: path, reason: "the folder belongs to another user (uid \(info.st_uid)), not to you")
    }
    guard let folder = opendir(path) else {
      throw VaultError.io(path: path, reason: String(cString: strerror(errno)))
    }
    defer { closedir(folder) }
    while let entry = readdir(folder) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) {
        String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
      }
      if name != "." && name != ".." {
        throw VaultError.io(path: path, reason: "the folder is not empty (a mount would hide what it holds)")
      }
    }
  }

  /// Whether `path` is a mount whose program ended without unmounting it (killed): the
  /// kernel then answers "transport endpoint is not connected" for it.
  public static func isAbandonedMount(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) != 0 && errno == ENOTCONN
  }

  /// The FUSE device: throws `.io` naming it when it is missing, not the FUSE device, or
  /// not open to this user.
  public static func requireFuse() throws {
    let device = "/dev/fuse"
    var info = stat()
    guard stat(device, &info) == 0 else {
      throw VaultError.io(
        path: device,
        reason: "FUSE is not available here (\(String(cString: strerror(errno)))); install fuse3")
    }
    // The FUSE device is character device 10, 229 on Linux (major and minor as glibc's
    // makedev packs them, which Swift does not import).
    let (major, minor) = (
      (info.st_rdev >> 8) & 0xfff, (info.st_rdev & 0xff) | ((info.st_rdev >> 12) & 0xfff00)
    )
    guard info.st_mode & S_IFMT == S_IFCHR, major == 10, minor == 229 else {
      throw VaultError.io(path: device, reason: "not the FUSE device, so FUSE is not available here")
    }
    let descriptor = open(device, O_RDWR | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw VaultError.io(
        path: device, reason: "FUSE is not permitted here (\(String(cString: strerror(errno))))")
    }
    close(descriptor)
  }
}
