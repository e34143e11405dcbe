import CFuse
import Foundation
import VaultCore

/// A mount's folders listed: opened on the tree of the moment (`OpenFolder`), read in
/// batches the size of the kernel's buffer, each entry with its attributes and inode when
/// the kernel asks for them (readdirplus), so that `ls -l` needs no look-up per name.
enum MountListing {
  static func add(to operations: inout fuse_lowlevel_ops) {
    operations.opendir = { request, inode, info in
      guard let info else { return MountOperations.fail(request, EINVAL) }
      MountListing.open(request, inode, info)
    }
    operations.readdir = { request, _, size, offset, info in
      guard let info else { return MountOperations.fail(request, EINVAL) }
      MountListing.list(request, info.pointee.fh, size: size, from: Int(offset), plus: false)
    }
    operations.readdirplus = { request, _, size, offset, info in
      guard let info else { return MountOperations.fail(request, EINVAL) }
      MountListing.list(request, info.pointee.fh, size: size, from: Int(offset), plus: true)
    }
    operations.releasedir = { request, _, info in
      if let info { MountOperations.state(request).drop(info.pointee.fh) }
      MountOperations.fail(request, 0)
    }
  }

  private static func open(
    _ request: fuse_req_t?, _ inode: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>
  ) {
    let state = MountOperations.state(request)
    let tree = state.tree
    guard case .folder(let number)? = tree.nodesByInode[inode] else {
      return MountOperations.fail(request, tree.nodesByInode[inode] == nil ? ENOENT : ENOTDIR)
    }
    info.pointee.fh = state.keep(OpenFolder(tree: tree, folder: number))
    fuse_reply_open(request, info)
  }

  /// The listing from entry `offset` on ("." and ".." first), as many entries as `size`
  /// bytes take; each carries the offset of the next, where the next call goes on.
  private static func list(_ request: fuse_req_t?, _ handle: UInt64, size: Int, from offset: Int, plus: Bool)
  {
    let state = MountOperations.state(request)
    guard let open = state.handle(handle, as: OpenFolder.self) else {
      return MountOperations.fail(request, EBADF)
    }
    let tree = open.tree
    let folder = tree.folders[open.folder]
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(size, 1))
    defer { buffer.deallocate() }
    var used = 0
    var index = offset
    while index < folder.nodes.count + 2 {
      let node: MountTree.Node =
        index < 2 ? .folder(index == 0 ? open.folder : folder.parent) : folder.nodes[index - 2]
      let name = index == 0 ? "." : index == 1 ? ".." : folder.names[index - 2]
      var entry = MountOperations.entry(of: node, in: tree, state)
      let next = off_t(index + 1)
      let needed =
        plus
        ? fuse_add_direntry_plus(request, buffer + used, size - used, name, &entry, next)
        : fuse_add_direntry(request, buffer + used, size - used, name, &entry.attr, next)
      if needed > size - used { break }
      used += needed
      index += 1
    }
    fuse_reply_buf(request, buffer, used)
  }
}
