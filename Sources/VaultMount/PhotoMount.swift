import CFuse
import Foundation
import VaultCore

/// A space shown as a read-only file system (see `MountTree`) through libfuse3's low-level
/// API (`MountOperations`) and its multithreaded loop. The space is opened to read and holds no lock: other commands
/// change it meanwhile, and a `MountWatcher` brings the tree up to date.
public final class PhotoMount {
  public let mountPoint: String
  private let state: MountState
  private let browser: PhotoBrowser
  /// Only for the watcher, which watches its folders, and for opening originals
  /// (`OriginalOpener`); the photos are listed through `browser`.
  private let space: Space
  private var session: OpaquePointer?
  private var watcher: MountWatcher?

  /// Builds the tree of `space`'s photos, to be mounted on `mountPoint`.
  public init(space: Space, mountPoint: String) {
    self.mountPoint = mountPoint
    self.space = space
    let browser = space.makeBrowser()
    self.browser = browser
    state = MountState(originals: space.originalOpener, tree: Self.tree(of: browser))
  }

  /// Told of what goes wrong while mounted (a photo that does not read, a reload that
  /// fails), from FUSE's threads.
  public var onProblem: @Sendable (String) -> Void {
    get { state.onProblem }
    set { state.onProblem = newValue }
  }

  static func tree(of browser: PhotoBrowser) -> MountTree {
    tree(of: browser, inodes: InodeNumbers())
  }

  /// The tree of the browser's photos, numbered on `inodes` (those of the tree it replaces).
  static func tree(of browser: PhotoBrowser, inodes: InodeNumbers) -> MountTree {
    let source = browser.dataSource
    return MountTree(
      photos: (0..<browser.count).map { source.photoAtIndex($0) }, trashed: source.trashedPhotos(),
      shownNames: source.shownNames(), inodes: inodes)
  }

  /// Mounts (read-only, for this user only: no `allow_other`); Ctrl-C, SIGTERM and SIGHUP
  /// end the loop from here on. Throws `.io` naming the mount point when libfuse cannot.
  public func mount() throws {
    vault_fuse_capture_log()
    let options = ["vault", "-o", "ro,default_permissions,fsname=vault,subtype=vault"]
    var pointers = options.map { strdup($0) }
    defer { for pointer in pointers { free(pointer) } }
    let session = pointers.withUnsafeMutableBufferPointer { argv -> OpaquePointer? in
      var arguments = fuse_args(argc: Int32(argv.count), argv: argv.baseAddress, allocated: 0)
      var operations = MountOperations.table()
      let made = fuse_session_new(
        &arguments, &operations, MemoryLayout<fuse_lowlevel_ops>.size,
        Unmanaged.passUnretained(state).toOpaque())
      fuse_opt_free_args(&arguments)
      return made
    }
    guard let session else { throw failure("libfuse refused its options") }
    guard fuse_session_mount(session, mountPoint) == 0 else {
      fuse_session_destroy(session)
      throw failure("could not mount")
    }
    self.session = session
    guard fuse_set_signal_handlers(session) == 0 else {
      fuse_session_unmount(session)
      fuse_session_destroy(session)
      self.session = nil
      throw failure("could not set up its signal handlers")
    }
    // Watching from here on, before the caller says the mount is ready.
    let reloading = MountReload(browser: browser, state: state, session: session)
    watcher = MountWatcher(space: space) { reloading.reload() }
  }

  private func failure(_ what: String) -> VaultError {
    let said = String(cString: vault_fuse_last_log()).trimmingCharacters(in: .whitespacesAndNewlines)
    return .io(path: mountPoint, reason: what + (said.isEmpty ? "" : " (\(said))") + "; nothing was mounted")
  }

  /// Serves the mount until it is unmounted (`fusermount3 -u`) or a signal ends it; then
  /// unmounts, lets go of every open file (wiping what they decrypted) and returns.
  public func run() {
    guard let session else { return }
    watcher?.start()
    _ = vault_fuse_session_loop_mt(session, 16)
    watcher?.stop()
    fuse_remove_signal_handlers(session)
    fuse_session_unmount(session)
    state.dropAll()
    fuse_session_destroy(session)
    self.session = nil
  }
}

/// What the watcher's thread does when the space changed: reads it again and puts the new
/// tree in place.
///
/// `@unchecked Sendable` because it is handed to that thread, which alone uses the browser
/// from then on (`PhotoMount` reads it only before, for the first tree): a browser is not
/// thread-safe, and a hand-over is what the compiler cannot follow. libfuse lets any thread
/// invalidate names with the session.
private final class MountReload: @unchecked Sendable {
  private let browser: PhotoBrowser
  private let state: MountState
  private let session: OpaquePointer

  init(browser: PhotoBrowser, state: MountState, session: OpaquePointer) {
    self.browser = browser
    self.state = state
    self.session = session
  }

  /// Reads the space again and puts the new tree in place, numbered as the one it replaces;
  /// the kernel forgets the names that now show another photo, or none. A space that no longer reads whole (its journal
  /// gone while a sync engine moves files, or damaged) keeps the tree it had, with a
  /// warning, rather than show an empty space: what the mount lists stays what was there
  /// until the space reads whole again.
  func reload() {
    do {
      if let damage = try browser.readAgain(waitingAtMost: 10) {
        state.onProblem("the space does not read whole now, so the mount shows it as it was: \(damage)")
        return
      }
    } catch {
      state.onProblem(
        "the space could not be read again, so the mount shows it as it was: \(error); if its password was changed, mount it again"
      )
      return
    }
    let newer = PhotoMount.tree(of: browser, inodes: state.tree.inodes)
    let older = state.swapTree(newer)
    for (folder, name) in older.entriesChanged(in: newer) {
      _ = fuse_lowlevel_notify_inval_entry(session, folder, name, strlen(name))
    }
  }
}
