import CFuse
import Foundation
import VaultCore

/// A mount's files opened and read: each open file reads its original through readers of
/// the mount's pool (`OpenOriginal`), by range, into a buffer (or from a block decrypted
/// ahead, `DecryptAhead`) wiped once the kernel has its copy.
enum MountReads {
  static func add(to operations: inout fuse_lowlevel_ops) {
    operations.open = { request, inode, info in
      guard let info else { return MountOperations.fail(request, EINVAL) }
      MountReads.open(request, inode, info)
    }
    operations.read = { request, _, size, offset, info in
      guard let info else { return MountOperations.fail(request, EINVAL) }
      MountReads.read(request, info.pointee.fh, size: size, at: offset)
    }
    operations.release = { request, _, info in
      if let info { MountOperations.state(request).drop(info.pointee.fh) }
      MountOperations.fail(request, 0)
    }
  }

  /// A file's bytes never change (a photo's original is never rewritten), so the kernel
  /// keeps them from one open to the next (`keep_cache`).
  private static func open(
    _ request: fuse_req_t?, _ inode: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>
  ) {
    guard info.pointee.flags & O_ACCMODE == O_RDONLY else { return MountOperations.fail(request, EROFS) }
    let state = MountOperations.state(request)
    let tree = state.tree
    guard let node = tree.nodesByInode[inode] else { return MountOperations.fail(request, ENOENT) }
    guard case .file(let number) = node else { return MountOperations.fail(request, EISDIR) }
    let file = tree.files[number]
    do {
      // One blob for all the readers of this file: they share what it reads ahead.
      let originals = state.originals
      let blob = try originals.blob(of: file.record)
      // Not an offloaded one: decrypting its next blocks ahead would fetch more of it over the
      // network than a seek needs (OffloadMountTests: a third 4 MiB range on an idle machine).
      let ahead = blob.fetchesOverNetwork ? nil : state.decryptAhead
      let open = OpenOriginal(file: file, pool: state.readers, ahead: ahead) {
        try originals.ranges(of: file.record, in: blob)
      }
      try open.openFirstReader()
      info.pointee.fh = state.keep(open)
      info.pointee.keep_cache = 1
      fuse_reply_open(request, info)
    } catch {
      state.onProblem("\(file.record.name): \(error)")
      MountOperations.fail(request, EIO)
    }
  }

  private static func read(_ request: fuse_req_t?, _ handle: UInt64, size: Int, at offset: off_t) {
    let state = MountOperations.state(request)
    guard let open = state.handle(handle, as: OpenOriginal.self) else {
      return MountOperations.fail(request, EBADF)
    }
    do {
      _ = try open.read(at: Int64(offset), count: size) { bytes in
        fuse_reply_buf(request, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count)
      }
    } catch {
      state.onProblem("\(open.file.record.name): \(error)")
      MountOperations.fail(request, EIO)
    }
  }
}
