import HTTPTypes
import VaultCore

/// How an upload's failure is answered: the status, the reason sent to the page, and the
/// one the terminal prints (the same, but for the server's own failures, whose details,
/// such as paths, stay on this machine).
struct UploadRefusal: Equatable {
  /// Where the upload was when it failed.
  enum Stage {
    /// Waiting for memory (`UploadIntake.begin`).
    case admission
    /// Receiving its bytes.
    case receiving
    /// Being stored (`PhotoUpload.finish`).
    case storing
  }

  var status: HTTPResponse.Status
  var reason: String
  var detail: String

  init(status: HTTPResponse.Status, reason: String, detail: String? = nil) {
    self.status = status
    self.reason = reason
    self.detail = detail ?? reason
  }

  init(_ error: any Error, at stage: Stage) {
    switch (error as? VaultError, stage) {
    case (.uploadRefused(_, let reason)?, _) where reason == PhotoUpload.diskFullReason:
      self.init(status: HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), reason: reason)
    case (.uploadRefused(_, let reason)?, .admission):
      // The server checked the name and the size limit already: what is left is the
      // memory an upload may take.
      self.init(status: .contentTooLarge, reason: reason)
    case (.uploadRefused(_, let reason)?, .receiving):
      self.init(status: .badRequest, reason: reason)
    case (.uploadRefused(_, let reason)?, .storing):
      self.init(status: .unprocessableContent, reason: reason)
    case (.uploadsBusy?, _):
      self.init(status: .serviceUnavailable, reason: "the server is busy; try again")
    case (.spaceBusy?, _):
      // Another vault command (a long `vault add`) holds the space: nothing is wrong with
      // the photo, and a retry once that command is done stores it.
      self.init(
        status: .serviceUnavailable, reason: "the vault is busy with another command; retry in a moment",
        detail: "not stored yet: \((error as? VaultError)?.description ?? "")")
    case (.spaceMoved?, _):
      // `vault passwd` renamed the space's folder: this server's space is gone from where it
      // was, and no retry can store the photo.
      self.init(
        status: .serviceUnavailable,
        reason: "the vault's password was changed on the computer; start vault serve again",
        detail: "not stored: \(VaultError.spaceMoved.description)")
    case (nil, _) where error is CancellationError:
      self.init(status: .serviceUnavailable, reason: "the server is stopping")
    case (let vaultError?, _):
      self.init(
        status: .internalServerError, reason: "the vault could not store it", detail: vaultError.description)
    case (nil, _):
      self.init(status: .internalServerError, reason: "the vault could not store it", detail: "\(error)")
    }
  }
}
