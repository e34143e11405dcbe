import Foundation

/// Every failure VaultCore reports. Messages are one lowercase line that names the file,
/// photo or value concerned, ready to print after `error: `.
public enum VaultError: Error, Equatable, CustomStringConvertible {
  /// No vault exists at the path.
  case vaultNotFound(path: String)
  /// `vault.json` cannot be read or is not a vault header this version understands.
  case invalidHeader(path: String, reason: String)
  /// The KDF limits stored in, or asked for, a header are outside the accepted bounds.
  case kdfOutOfBounds(reason: String)
  /// No space opens with the given password (indistinguishable from a wrong password).
  case noSpaceForPassword
  /// The folder of the password's space is there, but without a key file: a sync engine
  /// left it after a password change on another copy, or the file was removed.
  case spaceKeyMissing(folder: String)
  /// A space already opens with the password given to `init`.
  case spaceAlreadyExists
  /// `passwd` was given the current password as the new one.
  case newPasswordIsCurrent
  /// `passwd` was given a new password that already opens another space.
  case newPasswordOpensAnotherSpace
  /// The password is unusable (empty, or not valid UTF-8).
  case invalidPassword(reason: String)
  /// A space's wrapped master key failed to authenticate or parse.
  case damagedKey(path: String)
  /// An encrypted blob failed to authenticate, is truncated, or is not the one expected.
  case damagedBlob(what: String, reason: String)
  /// The space's index failed to authenticate or parse.
  case damagedIndex(path: String, reason: String)
  /// A file system operation failed.
  case io(path: String, reason: String)
  /// A file to import is not an image format vault can read; `image` names the image
  /// format it is, when vault recognises it.
  case unsupportedFormat(path: String, image: String? = nil)
  /// An image could not be decoded.
  case decodeFailed(path: String, reason: String)
  /// A video could not be read: its container or its pictures are damaged, its header
  /// claims what no camera makes, or reading it took too long.
  case videoUnreadable(path: String, reason: String)
  /// The decoder helper reading a file hit one of its limits (memory, time) or died
  /// (`reason` names the limit or the signal): the file is refused, nothing else changes.
  case decoderRefused(path: String, reason: String)
  /// An image declares more pixels than the allowed limit.
  case imageTooLarge(path: String, width: Int, height: Int, limit: Int)
  /// Decoding an image would take more memory than one photo may use.
  case tooMuchMemory(path: String, bytes: Int, limit: Int)
  /// A photo number is outside `1...count`.
  case indexOutOfRange(index: Int, count: Int)
  /// A photo choice such as `5-7` could not be parsed.
  case invalidSelector(String, reason: String)
  /// An id or id prefix matched no photo, or several.
  case ambiguousPhotoID(prefix: String, matches: Int)
  /// Digits that are both a photo's number and the start of another photo's id.
  case numberOrID(String)
  /// A batch command found no photos to act on.
  case nothingSelected(action: String)
  /// A batch command was asked to act on every photo of an empty space.
  case emptySpace(action: String)
  /// A value given to a command is outside what it accepts.
  case invalidArgument(String)
  /// The space's folder was renamed (its password changed) or removed while this command
  /// waited for it or kept it open.
  case spaceMoved
  /// Another command held the space's lock for longer than a command waits for it.
  case spaceBusy(holder: String?, waited: Double)
  /// A photo sent as bytes (`UploadIntake`) is not accepted: its name, its size, or its
  /// content (the reason is the one `add` gives for such a file).
  case uploadRefused(name: String, reason: String)
  /// An upload waited as long as it may for memory that other uploads hold.
  case uploadsBusy(name: String, seconds: Double)
  /// The kernel keyring cannot keep a session key here (no keyring, or the key system
  /// calls are refused, as in some containers); `reason` names the call and its error.
  case keyringUnavailable(reason: String)
  /// The session keyring kept changing under `vault unlock` (other unlocks, or `lock
  /// --all`, of the same session at the same time): the key was not kept.
  case keyringBusy
  /// A session key no longer opens its space: the space's password was changed, or the
  /// space was removed, its key file does not unwrap with the key, or its index does not
  /// open with the master key it unwraps.
  case staleSessionKey
  /// A name an album cannot have (see `AlbumName`).
  case invalidAlbumName(String, reason: String)
  /// No album has this name.
  case noSuchAlbum(String)
  /// An album of this name exists already.
  case albumExists(String)
  /// A date or time that does not parse, or names no moment (see `DatePeriod`).
  case invalidDate(String, reason: String)
  /// A recovery key as typed is not one: a character, the length, or its check (a typo).
  /// `source` names where it was read ("in 'key.txt'"), if anywhere.
  case invalidRecoveryKey(reason: String, source: String? = nil)
  /// No space of the vault opens with the recovery key (a replaced key, or another vault's).
  case noSpaceForRecoveryKey
  /// The recovery key opens several folders with a key file: copies of one space kept
  /// apart, none of which recovery chooses silently.
  case recoveryKeyOpensSeveralFolders([RecoverableFolder])
  /// The folder named for recovery is not one of the vault's that the recovery key opens.
  case noSuchRecoverableFolder(String)
  /// Originals of the space are offloaded to `remote`, and another one was given: they
  /// would no longer be found.
  case offloadedElsewhere(remote: String)
  /// A new password would rename the space's folder, which names the place of its
  /// offloaded originals on the remote (`count` of them): they would no longer be found.
  case offloadedOriginalsNameTheFolder(count: Int)
  /// A remote could not give what a read asked of it (an offloaded original); the error's
  /// one line names the remote.
  case remote(RemoteError)

  public var description: String {
    switch self {
    case .vaultNotFound(let path):
      return "no vault at '\(path)'"
    case .invalidHeader(let path, let reason):
      return "'\(path)' is not a usable vault header: \(reason)"
    case .kdfOutOfBounds(let reason):
      return "key derivation limits out of bounds: \(reason)"
    case .noSpaceForPassword:
      return "no space opens with this password"
    case .spaceKeyMissing(let folder):
      return "'\(folder)': the space's key file is missing, so this password opens nothing"
    case .spaceAlreadyExists:
      return "a space already opens with this password; nothing was changed"
    case .newPasswordIsCurrent:
      return "the new password is the current one; nothing was changed"
    case .newPasswordOpensAnotherSpace:
      return "that password already opens another space; nothing was changed"
    case .invalidPassword(let reason):
      return "unusable password: \(reason)"
    case .damagedKey(let path):
      return "the space key '\(path)' is damaged and cannot be unwrapped"
    case .damagedBlob(let what, let reason):
      return "\(what) is damaged: \(reason)"
    case .damagedIndex(let path, let reason):
      return "the index '\(path)' is damaged: \(reason)"
    case .io(let path, let reason):
      return "'\(path)': \(reason)"
    case .unsupportedFormat(let path, _), .decodeFailed(let path, _), .imageTooLarge(let path, _, _, _),
      .tooMuchMemory(let path, _, _), .videoUnreadable(let path, _), .decoderRefused(let path, _):
      return "'\(path)': \(contentProblem ?? "")"
    case .indexOutOfRange(let index, let count):
      return count == 0
        ? "there is no photo \(index): the space is empty"
        : "there is no photo \(index): photos are numbered 1 to \(count)"
    case .invalidSelector(let text, let reason):
      return "'\(text)': \(reason)"
    case .numberOrID(let text):
      return "'\(text)' is both a photo number and the start of an id; give the whole id, or more digits"
    case .ambiguousPhotoID(let prefix, let matches):
      return matches == 0
        ? "no photo has an id starting with '\(prefix)'"
        : "'\(prefix)' starts the ids of \(matches) photos; give more digits"
    case .nothingSelected(let action):
      return "no photos selected: select photos before \(action)"
    case .emptySpace(let action):
      return "the space has no photos (nothing to do for \(action))"
    case .invalidArgument(let text):
      return text
    case .spaceMoved:
      return
        "the space was moved or removed while this command was using or waiting for it (was its password changed?); nothing more was done"
    case .spaceBusy(let holder, let waited):
      return
        "the space is in use by \(holder ?? "another command"); waited \(String(format: "%g", waited)) s for it (VAULT_LOCK_WAIT sets how long), try again when it is done"
    case .uploadRefused(let name, let reason):
      return "upload '\(name)' refused: \(reason)"
    case .uploadsBusy(let name, let seconds):
      return
        "upload '\(name)' waited \(String(format: "%g", seconds)) s for memory that other uploads hold; try again"
    case .keyringUnavailable(let reason):
      return "no kernel keyring is available to keep the key (\(reason))"
    case .keyringBusy:
      return
        "the session keyring kept changing (other unlocks or locks of this session meanwhile); the key was not kept"
    case .staleSessionKey:
      return
        "the session key no longer opens its space (its password was changed, or the space was removed, made again or damaged)"
    case .invalidAlbumName(let name, let reason):
      return "album name '\(TerminalSafeText.escaped(name))' is not usable: \(reason)"
    case .noSuchAlbum(let name):
      return "no album is named '\(TerminalSafeText.escaped(name))'"
    case .albumExists(let name):
      return "an album named '\(TerminalSafeText.escaped(name))' exists already"
    case .invalidDate(let text, let reason):
      return "'\(TerminalSafeText.escaped(text))' is not a date: \(reason)"
    case .invalidRecoveryKey(let reason, let source):
      return "the recovery key\(source.map { " " + $0 } ?? "") \(reason); nothing was changed"
    case .noSpaceForRecoveryKey:
      return
        "no space of this vault opens with this recovery key (a newer one replaced it, or it is another vault's); nothing was changed"
    case .recoveryKeyOpensSeveralFolders(let folders):
      return Self.severalFolders(folders.map { $0.described() })
    case .noSuchRecoverableFolder(let name):
      return "'\(name)' is not a folder of this vault that the recovery key opens; nothing was changed"
    case .offloadedElsewhere(let remote):
      return
        "originals of this space are offloaded to '\(RemoteRedaction.redacted(remote))'; bring them back before offloading elsewhere"
    case .remote(let error):
      return error.description
    case .offloadedOriginalsNameTheFolder(let count):
      return
        "\(count) original\(count == 1 ? " is" : "s are") offloaded, and the remote keeps \(count == 1 ? "it" : "them") under the space's folder name, which a new password changes; nothing was changed"
    }
  }

  /// The message of `recoveryKeyOpensSeveralFolders`, each folder `described`.
  public static func severalFolders(_ described: [String]) -> String {
    "the recovery key opens \(described.count) copies of the space, kept apart: "
      + described.joined(separator: ", ") + "; nothing was changed"
  }

  /// What is wrong with a file's content, without the file's name, for the errors about
  /// it: an upload is refused with the same words as `add` uses for such a file.
  var contentProblem: String? {
    switch self {
    case .unsupportedFormat(_, let image?):
      return "\(image) images are not supported (vault imports \(ImageFormat.displayNames(joinedBy: "and")))"
    case .unsupportedFormat(_, nil):
      return "not a \(ImageFormat.displayNames(joinedBy: "or")) file"
    case .decodeFailed(_, let reason):
      return "cannot decode image: \(reason)"
    case .videoUnreadable(_, let reason):
      return "cannot read video: \(reason)"
    case .imageTooLarge(_, let width, let height, let limit):
      return "image of \(width)×\(height) pixels is over the limit of \(limit / 1_000_000) megapixels"
    case .decoderRefused(_, let reason):
      return "refused: \(reason)"
    case .tooMuchMemory(_, let bytes, let limit):
      return
        "decoding it would need \(formatMemory(bytes)) of memory, over the \(formatMemory(limit)) a photo may use"
    default:
      return nil
    }
  }

  /// The same for an upload, which is reported as refused already (`refused x.mp4: …`,
  /// `upload 'x.mp4' refused: …`): a decoder's refusal without its own word "refused".
  var uploadProblem: String? {
    if case .decoderRefused(_, let reason) = self { return reason }
    return contentProblem
  }
}

extension VaultError {
  /// An `.io` error carrying the text of the current `errno`.
  package static func posix(_ path: String, _ code: Int32 = errno) -> VaultError {
    .io(path: path, reason: String(cString: strerror(code)))
  }
}

/// Bytes of memory for a message: whole MiB below a GiB, GiB with one decimal above.
func formatMemory(_ bytes: Int) -> String {
  if bytes >= 1 << 30 { return String(format: "%.1f GiB", Double(bytes) / Double(1 << 30)) }
  return "\((bytes + (1 << 20) - 1) >> 20) MiB"
}
