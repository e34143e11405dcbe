import CFuse
import Foundation
import VaultCore

/// libfuse's low-level callbacks (C function pointers: they capture nothing, and find the
/// mount's state in the request). Each names what it wants by inode number, which the tree
/// maps to its node in one dictionary probe: no path is built or hashed per call, which
/// libfuse's high-level API does for every one (most of the time of an `ls -lR` there).
/// Listings are `MountListing`'s, reads `MountReads`'s.
enum MountOperations {
  static func table() -> fuse_lowlevel_ops {
    var operations = fuse_lowlevel_ops()
    operations.`init` = { _, connection in
      if let connection { MountOperations.configure(connection) }
    }
    operations.lookup = { request, parent, name in
      guard let name else { return MountOperations.fail(request, EINVAL) }
      MountOperations.lookUp(request, parent, String(cString: name))
    }
    // Inode numbers are never reused (`InodeNumbers`), so there is nothing to forget.
    operations.forget = { request, _, _ in fuse_reply_none(request) }
    operations.forget_multi = { request, _, _ in fuse_reply_none(request) }
    operations.getattr = { request, inode, info in
      MountOperations.getAttributes(request, inode, info)
    }
    MountListing.add(to: &operations)
    MountReads.add(to: &operations)
    return operations
  }

  static func state(_ request: fuse_req_t?) -> MountState {
    Unmanaged<MountState>.fromOpaque(fuse_req_userdata(request)).takeUnretainedValue()
  }

  static func fail(_ request: fuse_req_t?, _ error: Int32) {
    fuse_reply_err(request, error)
  }

  /// How long the kernel may keep what it was told of a name or its attributes: a few
  /// seconds, so that a change shows soon even where the reload's invalidation misses it,
  /// while `ls -lR` asks nothing twice.
  static let entryTimeout = 2.0
  static let negativeTimeout = 1.0

  /// Listings always carry their entries' attributes (readdirplus, not only for a folder's
  /// first batch, which the kernel's automatic mode asks for): `ls -l` then looks nothing up.
  private static func configure(_ connection: UnsafeMutablePointer<fuse_conn_info>) {
    if connection.pointee.capable & UInt32(FUSE_CAP_READDIRPLUS) != 0 {
      connection.pointee.want |= UInt32(FUSE_CAP_READDIRPLUS)
      connection.pointee.want &= ~UInt32(FUSE_CAP_READDIRPLUS_AUTO)
    }
  }

  private static func lookUp(_ request: fuse_req_t?, _ parent: fuse_ino_t, _ name: String) {
    let state = state(request)
    let tree = state.tree
    guard case .folder(let folder)? = tree.nodesByInode[parent] else { return fail(request, ENOTDIR) }
    var entry = fuse_entry_param()
    if let node = tree.child(name, of: folder) {
      entry = self.entry(of: node, in: tree, state)
    } else {
      // Inode 0: the kernel keeps that the name is missing, for a second.
      entry.entry_timeout = negativeTimeout
    }
    fuse_reply_entry(request, &entry)
  }

  /// What the kernel keeps of `node` when it is looked up or listed.
  static func entry(of node: MountTree.Node, in tree: MountTree, _ state: MountState) -> fuse_entry_param {
    var entry = fuse_entry_param()
    entry.ino = tree.inode(of: node)
    entry.attr_timeout = entryTimeout
    entry.entry_timeout = entryTimeout
    fill(&entry.attr, node, tree, state)
    return entry
  }

  /// A file whose photo left the tree while it was open keeps its attributes (`fstat`).
  private static func getAttributes(
    _ request: fuse_req_t?, _ inode: fuse_ino_t, _ info: UnsafeMutablePointer<fuse_file_info>?
  ) {
    let state = state(request)
    let tree = state.tree
    var status = stat()
    if let node = tree.nodesByInode[inode] {
      fill(&status, node, tree, state)
    } else if let info, let open = state.handle(info.pointee.fh, as: OpenOriginal.self) {
      fillFile(&status, open.file, state)
    } else {
      return fail(request, ENOENT)
    }
    fuse_reply_attr(request, &status, entryTimeout)
  }

  static func fill(_ status: inout stat, _ node: MountTree.Node, _ tree: MountTree, _ state: MountState) {
    switch node {
    case .file(let number): fillFile(&status, tree.files[number], state)
    case .folder(let number): fillFolder(&status, inode: tree.folders[number].inode, state)
    }
  }

  /// A photo's file: read-only for its owner, with the original's size and time.
  static func fillFile(_ status: inout stat, _ file: MountTree.File, _ state: MountState) {
    let record = file.record
    status = stat()
    status.st_ino = ino_t(file.inode)
    status.st_mode = S_IFREG | 0o400
    status.st_nlink = UInt(file.links)
    status.st_uid = state.owner.uid
    status.st_gid = state.owner.gid
    status.st_size = off_t(record.bytes)
    status.st_blocks = blkcnt_t((record.bytes + 511) / 512)
    // Programs that size their reads by it (cat, cp) ask for big pieces.
    status.st_blksize = 1 << 20
    let time = timespec(tv_sec: Int(record.modifiedAt.seconds), tv_nsec: Int(record.modifiedAt.nanoseconds))
    status.st_mtim = time
    status.st_atim = time
    status.st_ctim = time
  }

  static func fillFolder(_ status: inout stat, inode: UInt64, _ state: MountState) {
    status = stat()
    status.st_ino = ino_t(inode)
    status.st_mode = S_IFDIR | 0o500
    status.st_nlink = 2
    status.st_uid = state.owner.uid
    status.st_gid = state.owner.gid
    status.st_mtim = state.folderTime
    status.st_atim = state.folderTime
    status.st_ctim = state.folderTime
  }
}
