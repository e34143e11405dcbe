import HTTPTypes
import VaultCore

/// How an upload's failure is answered: the status and the reason the page and the
/// terminal show.
enum UploadRefusal {
  static func describe(_ error: any Error, name: String) -> (HTTPResponse.Status, String) {
    guard let error = error as? VaultError else {
      return (.serviceUnavailable, "the server is busy; try again")
    }
    let reason = withoutName(error.description, name: name)
    switch error {
    case .unsupportedFormat:
      return (.unsupportedMediaType, "not a photo vault imports (\(reason))")
    case .decodeFailed, .imageTooLarge, .tooMuchMemory:
      return (.unprocessableContent, reason)
    default:
      return (.internalServerError, reason)
    }
  }

  /// VaultCore's messages start with the file's name in quotes; the reply names it already.
  static func withoutName(_ message: String, name: String) -> String {
    let prefix = "'\(name)': "
    return message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
  }
}
