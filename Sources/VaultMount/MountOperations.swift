import CFuse
import Foundation
import VaultCore

/// libfuse's callbacks (C function pointers: they capture nothing, and find the mount's
/// state in FUSE's context). Paths are looked up in the tree's dictionary; reads go
/// through the open file's reader, by range.
enum MountOperations {
  static func table() -> fuse_operations {
    var operations = fuse_operations()
    operations.`init` = { _, configuration in
      MountOperations.configure(configuration)
      return fuse_get_context().pointee.private_data
    }
    operations.getattr = { path, status, info in
      guard let status else { return -EINVAL }
      return MountOperations.getAttributes(path, status, info)
    }
    operations.opendir = { path, info in
      guard let path, let info else { return -EINVAL }
      return MountOperations.openFolder(String(cString: path), info)
    }
    operations.readdir = { _, buffer, fill, offset, info, flags in
      guard let info, let fill else { return -EINVAL }
      return MountOperations.listFolder(
        info.pointee.fh, buffer, fill, from: Int(offset),
        plus: flags.rawValue & FUSE_READDIR_PLUS.rawValue != 0)
    }
    operations.releasedir = { _, info in
      if let info { MountOperations.state.drop(info.pointee.fh) }
      return 0
    }
    operations.open = { path, info in
      guard let path, let info else { return -EINVAL }
      return MountOperations.openFile(String(cString: path), info)
    }
    operations.read = { _, buffer, size, offset, info in
      guard let buffer, let info else { return -EINVAL }
      return MountOperations.readFile(
        info.pointee.fh, UnsafeMutableRawBufferPointer(start: buffer, count: size), offset)
    }
    operations.release = { _, info in
      if let info { MountOperations.state.drop(info.pointee.fh) }
      return 0
    }
    return operations
  }

  static var state: MountState {
    Unmanaged<MountState>.fromOpaque(fuse_get_context().pointee.private_data).takeUnretainedValue()
  }

  /// How long the kernel may keep what it was told of a name or its attributes: a few
  /// seconds, so that changes show soon, while `ls -lR` asks nothing twice. A file's bytes
  /// never change (a photo's original is never rewritten), so the kernel keeps them.
  private static func configure(_ configuration: UnsafeMutablePointer<fuse_config>?) {
    guard let configuration else { return }
    configuration.pointee.entry_timeout = 2
    configuration.pointee.attr_timeout = 2
    configuration.pointee.negative_timeout = 1
    configuration.pointee.kernel_cache = 1
    // Reads and listings find their file by handle: no path is built for them.
    configuration.pointee.nullpath_ok = 1
  }

  private static func getAttributes(
    _ path: UnsafePointer<CChar>?, _ status: UnsafeMutablePointer<stat>,
    _ info: UnsafeMutablePointer<fuse_file_info>?
  ) -> Int32 {
    let state = state
    if path == nil, let info, let open = state.handle(info.pointee.fh, as: OpenOriginal.self) {
      fillFile(status, open.record, state)
      return 0
    }
    guard let path else { return -ENOENT }
    let tree = state.tree
    switch tree.nodes[String(cString: path)] {
    case .file(let number): fillFile(status, tree.files[number], state)
    case .folder: fillFolder(status, state)
    case nil: return -ENOENT
    }
    return 0
  }

  /// A photo's file: read-only for its owner, with the original's size and time.
  static func fillFile(_ status: UnsafeMutablePointer<stat>, _ record: PhotoRecord, _ state: MountState) {
    status.initialize(to: stat())
    status.pointee.st_mode = S_IFREG | 0o400
    status.pointee.st_nlink = 1
    status.pointee.st_uid = state.owner.uid
    status.pointee.st_gid = state.owner.gid
    status.pointee.st_size = off_t(record.bytes)
    status.pointee.st_blocks = blkcnt_t((record.bytes + 511) / 512)
    // Programs that size their reads by it (cat, cp) ask for big pieces.
    status.pointee.st_blksize = 1 << 20
    let time = timespec(tv_sec: Int(record.modifiedAt.seconds), tv_nsec: Int(record.modifiedAt.nanoseconds))
    status.pointee.st_mtim = time
    status.pointee.st_atim = time
    status.pointee.st_ctim = time
  }

  static func fillFolder(_ status: UnsafeMutablePointer<stat>, _ state: MountState) {
    status.initialize(to: stat())
    status.pointee.st_mode = S_IFDIR | 0o500
    status.pointee.st_nlink = 2
    status.pointee.st_uid = state.owner.uid
    status.pointee.st_gid = state.owner.gid
    status.pointee.st_mtim = state.folderTime
    status.pointee.st_atim = state.folderTime
    status.pointee.st_ctim = state.folderTime
  }

  private static func openFolder(_ path: String, _ info: UnsafeMutablePointer<fuse_file_info>) -> Int32 {
    let state = state
    let tree = state.tree
    guard case .folder(let number) = tree.nodes[path] else { return -ENOTDIR }
    info.pointee.fh = state.keep(OpenFolder(tree: tree, folder: number))
    return 0
  }

  /// The listing from entry `offset` on, as much as the kernel's buffer takes (each entry
  /// carries the offset of the next, so the next call goes on from there), with every
  /// entry's attributes when the kernel asks for them (readdirplus). Real offsets matter:
  /// with offset 0 libfuse answers readdirplus without the entries' node numbers, the
  /// kernel keeps none of them, and `ls -l` then looks every name up again.
  private static func listFolder(
    _ handle: UInt64, _ buffer: UnsafeMutableRawPointer?, _ fill: fuse_fill_dir_t, from offset: Int,
    plus: Bool
  ) -> Int32 {
    let state = state
    guard let open = state.handle(handle, as: OpenFolder.self) else { return -EBADF }
    let folder = open.tree.folders[open.folder]
    let flags = plus ? FUSE_FILL_DIR_PLUS : fuse_fill_dir_flags(0)
    var status = stat()
    var index = offset
    while index < folder.names.count + 2 {
      let name: String
      if index < 2 {
        name = index == 0 ? "." : ".."
        fillFolder(&status, state)
      } else {
        name = folder.names[index - 2]
        switch folder.nodes[index - 2] {
        case .file(let number): fillFile(&status, open.tree.files[number], state)
        case .folder: fillFolder(&status, state)
        }
      }
      if fill(buffer, name, &status, off_t(index + 1), flags) != 0 { return 0 }
      index += 1
    }
    return 0
  }

  private static func openFile(_ path: String, _ info: UnsafeMutablePointer<fuse_file_info>) -> Int32 {
    guard info.pointee.flags & O_ACCMODE == O_RDONLY else { return -EROFS }
    let state = state
    let tree = state.tree
    guard let node = tree.nodes[path] else { return -ENOENT }
    guard case .file(let number) = node else { return -EISDIR }
    let record = tree.files[number]
    do {
      let originalRanges = state.originalRanges
      let open = OpenOriginal(record: record, pool: state.readers) { try originalRanges(record) }
      try open.openFirstReader()
      info.pointee.fh = state.keep(open)
      info.pointee.keep_cache = 1
      return 0
    } catch {
      state.onProblem("\(path.dropFirst()): \(error)")
      return -EIO
    }
  }

  private static func readFile(_ handle: UInt64, _ buffer: UnsafeMutableRawBufferPointer, _ offset: off_t)
    -> Int32
  {
    let state = state
    guard let open = state.handle(handle, as: OpenOriginal.self) else { return -EBADF }
    do {
      return Int32(try open.read(at: Int64(offset), into: buffer))
    } catch {
      state.onProblem("\(open.record.name): \(error)")
      return -EIO
    }
  }
}
