import Foundation
import VaultCore

/// The upload page as sent: `UploadPage.html` with its style and script put inline, and
/// the Content-Security-Policy that allows exactly those two (by their SHA-256) and
/// nothing from elsewhere.
struct ServedPage: Sendable {
  let body: [UInt8]
  let contentSecurityPolicy: String

  init(html: String = UploadPage.html, style: String = UploadPage.style, script: String = UploadPage.script) {
    precondition(html.contains("{{STYLE}}") && html.contains("{{SCRIPT}}"), "the page lost a placeholder")
    let page =
      html
      .replacingOccurrences(of: "{{STYLE}}", with: style)
      .replacingOccurrences(of: "{{SCRIPT}}", with: script)
    body = Array(page.utf8)
    contentSecurityPolicy = [
      "default-src 'none'",
      "script-src '\(Self.hashSource(script))'",
      "style-src '\(Self.hashSource(style))'",
      "img-src 'self' data:",
      "connect-src 'self'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].joined(separator: "; ")
  }

  /// `sha256-<base64>` of the text as UTF-8: what a browser computes over an inline
  /// element's content.
  static func hashSource(_ text: String) -> String {
    "sha256-" + Base64.encoded(SHA256.hash(Array(text.utf8)))
  }
}
