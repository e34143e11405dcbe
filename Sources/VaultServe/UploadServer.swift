import Foundation
import HTTPTypes
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOPosix
import Synchronization
import VaultCore

/// The `vault serve` server: one page and one upload route behind the token, over TLS
/// (HTTP/1.1 and HTTP/2 by ALPN) or plain HTTP/1.1, with every photo handed to the
/// space's `UploadIntake`. Everything else is a bare 404.
public final class UploadServer: Sendable {
  public struct Configuration: Sendable {
    /// The IP address to listen on.
    public var address: String
    /// 0 for a free port.
    public var port: Int
    /// Nil serves plain HTTP.
    public var certificate: ServerCertificate?
    /// How long a request's head or body may stall while the server waits for it.
    public var stallTimeout: TimeAmount = .seconds(30)
    /// How long an upload waits for a share of the memory budget before a 503.
    public var budgetWait: Double = 60
    /// Connections open at once; more wait in the listen backlog.
    public var maxConnections = 128
    /// Connections one address (an IPv6 /64) may hold open at once; more are closed at
    /// once, so that idle sockets from one neighbour cannot take every slot.
    public var maxConnectionsPerAddress = ConnectionsPerAddress.defaultLimit
    /// How long a TLS handshake may take: a phone needs well under a second, and a slot
    /// held by a connection that never shakes hands is a slot the phone cannot use.
    public var handshakeTimeout: TimeAmount = .seconds(10)
    /// How long `stop` lets requests in progress finish before it cuts them off.
    public var stopGrace: Duration = .seconds(10)

    public init(address: String, port: Int, certificate: ServerCertificate?) {
      self.address = address
      self.port = port
      self.certificate = certificate
    }
  }

  public let token: AccessToken
  public let tally: UploadTally
  let configuration: Configuration
  let intake: UploadIntake
  let limiter: WrongTokenLimiter
  let connections: ConnectionsPerAddress
  let page: ServedPage
  let reportEvent: @Sendable (UploadEvent) -> Void
  private let control = Mutex(Control())

  private struct Control {
    var stopGracefully: (@Sendable () async -> Void)?
    var serving: Task<Void, any Error>?
    var stopRequested = false
  }

  /// `report` is called once for each upload that ends, from any thread.
  public init(
    configuration: Configuration, intake: UploadIntake, token: AccessToken = AccessToken(),
    limiter: WrongTokenLimiter = WrongTokenLimiter(), tally: UploadTally = UploadTally(),
    report: @escaping @Sendable (UploadEvent) -> Void
  ) {
    self.configuration = configuration
    self.intake = intake
    self.token = token
    self.limiter = limiter
    self.connections = ConnectionsPerAddress(
      limit: configuration.maxConnectionsPerAddress, total: configuration.maxConnections)
    self.tally = tally
    self.page = ServedPage()
    self.reportEvent = report
  }

  /// The address to open: `https://192.168.1.20:8443/<token>/`.
  public func url(port: Int) -> String {
    let scheme = configuration.certificate == nil ? "http" : "https"
    return "\(scheme)://\(ServeAddress.hostPort(configuration.address, port))/\(token.text)/"
  }

  /// Listens and serves until `stop()`; calls `onListening` with the port once the socket
  /// is bound. Throws `ServeError.cannotListen` when it cannot be bound.
  public func run(onListening: @escaping @Sendable (Int) -> Void) async throws {
    let responder: HTTPChannelHandler.Responder = { [self] request, writer, channel in
      let reply = await self.reply(to: request, from: channel)
      try await writer.write(
        response: reply.head, body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }
    let stallTimeout = configuration.stallTimeout
    let streamConfiguration = HTTP1Channel.Configuration(
      additionalChannelHandlers: [ConnectionGuard(stallTimeout: stallTimeout)])
    let serving = Task { [self] in
      if let certificate = configuration.certificate {
        let channel = try HTTP2UpgradeChannel(
          tlsConfiguration: certificate.tlsConfiguration,
          configuration: HTTP2ChannelConfiguration(
            idleTimeout: .nanoseconds(stallTimeout.nanoseconds),
            gracefulCloseTimeout: .seconds(5),
            streamConfiguration: streamConfiguration),
          responder: responder)
        try await serve(
          capped(DeadlineChannel(inner: channel, handshakeTimeout: configuration.handshakeTimeout)),
          onListening: onListening)
      } else {
        try await serve(
          capped(HTTP1Channel(responder: responder, configuration: streamConfiguration)),
          onListening: onListening)
      }
    }
    control.withLock { $0.serving = serving }
    try await withTaskCancellationHandler {
      try await serving.value
    } onCancel: {
      serving.cancel()
    }
  }

  /// Stops listening, lets the requests in progress end for up to `stopGrace` (then cuts
  /// them off: they count as incomplete), and makes `run` return once every commit under way
  /// has ended. Safe to call more than once, or before `run`.
  public func stop() async {
    let (stopGracefully, serving, first) = control.withLock { control in
      defer { control.stopRequested = true }
      return (control.stopGracefully, control.serving, !control.stopRequested)
    }
    if first, let serving {
      let grace = configuration.stopGrace
      Task {
        try await Task.sleep(for: grace)
        serving.cancel()
      }
    }
    await stopGracefully?()
  }

  private func capped<Child: ServerChildChannel>(_ child: Child) -> AddressCappedChannel<Child> {
    AddressCappedChannel(inner: child, connections: connections)
  }

  private func serve<Child: ServerChildChannel>(
    _ child: Child, onListening: @escaping @Sendable (Int) -> Void
  )
    async throws
  {
    let logger = Logger(label: "vault-serve") { _ in SwiftLogNoOpLogHandler() }
    let server = Server(
      childChannelSetup: child,
      configuration: ServerConfiguration(
        address: .hostname(configuration.address, port: configuration.port),
        availableConnectionsDelegate: MaximumAvailableConnections(
          configuration.maxConnections, logger: logger)),
      onServerRunning: { channel in onListening(channel.localAddress?.port ?? 0) },
      eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
      logger: logger)
    let stopBeforeStart = control.withLock { control -> Bool in
      control.stopGracefully = { try? await server.shutdownGracefully() }
      return control.stopRequested
    }
    if stopBeforeStart { return }
    do {
      try await server.run()
    } catch let error as IOError {
      throw ServeError.cannotListen(
        address: configuration.address, port: configuration.port,
        reason: Self.lowercasedFirst(strerror(error.errnoCode)))
    }
  }

  /// strerror's text as the start of a lowercase message.
  private static func lowercasedFirst(_ text: UnsafeMutablePointer<CChar>) -> String {
    let message = String(cString: text)
    return message.prefix(1).lowercased() + message.dropFirst()
  }

  // MARK: Requests

  struct Reply: Sendable {
    var head: HTTPResponse
    var body: [UInt8]
  }

  func reply(to request: Request, from channel: any Channel) async -> Reply {
    let address = WrongTokenLimiter.key(for: channel.remoteAddress)
    let route = Route(method: request.method, target: request.head.path, token: token)
    let connection = ConnectionGuard.connection(of: channel)
    switch route {
    case .page, .upload, .notFound(_, showsToken: true):
      connections.noteTokenShown(on: connection)
    case .notFound:
      break
    }
    // A connection that never showed the token is closed after its first wrong answer, so
    // that guesses (or favicon requests) cannot hold a connection slot.
    let closing = !connections.hasShownToken(connection)
    // The right token always gets through (it is compared in constant time): on IPv6 a
    // whole /64, the phone's neighbours included, shares one entry of the limiter.
    if case .notFound = route, limiter.verdict(for: address) == .blocked {
      return bare(.tooManyRequests, request: request, closingConnection: closing)
    }
    switch route {
    case .notFound(let countsAsGuess, _):
      if countsAsGuess { limiter.recordFailure(from: address) }
      return bare(.notFound, request: request, closingConnection: closing)
    case .page:
      tally.noteActivity()
      return pageReply()
    case .upload(let query):
      tally.noteActivity()
      return await upload(request, query: query)
    }
  }

  /// An empty response; it ends the exchange when the request still has a body coming, and
  /// the connection when `closingConnection`.
  private func bare(_ status: HTTPResponse.Status, request: Request, closingConnection: Bool) -> Reply {
    var fields = HTTPFields()
    fields[.contentLength] = "0"
    if Self.mayHaveBody(request) { fields[ConnectionGuard.closeMarker] = "1" }
    if closingConnection { fields[ConnectionGuard.closeConnectionMarker] = "1" }
    return Reply(head: HTTPResponse(status: status, headerFields: fields), body: [])
  }

  private static func mayHaveBody(_ request: Request) -> Bool {
    if request.headers[.transferEncoding] != nil { return true }
    guard let length = request.headers[.contentLength] else {
      // HTTP/2 needs no Content-Length; the ConnectionGuard knows whether the stream ended.
      return true
    }
    return length != "0"
  }

  private func pageReply() -> Reply {
    var fields = Self.commonFields
    fields[.contentType] = "text/html; charset=utf-8"
    fields[.contentLength] = String(page.body.count)
    fields[.contentSecurityPolicy] = page.contentSecurityPolicy
    fields[Self.referrerPolicy] = "no-referrer"
    return Reply(head: HTTPResponse(status: .ok, headerFields: fields), body: page.body)
  }

  private static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

  private static let commonFields: HTTPFields = [
    .cacheControl: "no-store",
    .xContentTypeOptions: "nosniff",
  ]

  // MARK: Uploads

  private func upload(_ request: Request, query: Substring) async -> Reply {
    guard let parameters = UploadParameters(query: query) else {
      return json(
        .badRequest, UploadAnswer(refused: "", reason: "the upload needs a file name (name=…)"),
        request: request)
    }
    let name = parameters.name
    tally.uploadStarted()
    let length: Int
    switch declaredLength(request.headers[.contentLength], name: name) {
    case .length(let declared): length = declared
    case .refused(let refusal): return refuse(name, refusal, request)
    }
    let photo: PhotoUpload
    do {
      photo = try await intake.begin(
        name: name, length: length, modifiedAt: parameters.modifiedAt, waitingAtMost: configuration.budgetWait
      )
    } catch {
      return refuse(name, UploadRefusal(error, at: .admission), request)
    }
    let (received, failure) = await receive(request, into: photo)
    if let failure {
      photo.cancel()
      return refuse(name, UploadRefusal(failure, at: .receiving), request)
    }
    guard received == length else {
      photo.cancel()
      report(.incomplete(name: name, received: received, length: length))
      return json(
        .badRequest, UploadAnswer(refused: name, reason: "the upload was cut short"), request: request)
    }
    let outcome: UploadOutcome
    do {
      // Once started, the commit runs to its end even if the server is stopping: `run`
      // returns only after every request's handler has, this one included.
      outcome = try await NIOThreadPool.singleton.runIfActive { try photo.finish() }
    } catch {
      photo.cancel()
      return refuse(name, UploadRefusal(error, at: .storing), request, bodyRead: true)
    }
    switch outcome {
    case .added:
      report(.added(name: name, bytes: length))
      return json(
        .created, UploadAnswer(outcome: "added", name: name, bytes: length), request: request, bodyRead: true)
    case .duplicate(let item):
      report(.duplicate(name: name, of: item?.description))
      return json(.ok, UploadAnswer(outcome: "duplicate", name: name), request: request, bodyRead: true)
    }
  }

  /// Feeds the request's body to `photo` as it arrives; the bytes received, and the
  /// refusal that stopped it early, if any. A connection that ended or stalled stops it
  /// without one: the count falls short of the length.
  private func receive(_ request: Request, into photo: PhotoUpload) async -> (Int, VaultError?) {
    var received = 0
    do {
      for try await buffer in request.body {
        // Encrypting and writing wait on the disk: off the event loop, one piece at a time,
        // so that the body is read no faster than it is stored.
        try await NIOThreadPool.singleton.runIfActive {
          try buffer.withUnsafeReadableBytes { try photo.append($0) }
        }
        received += buffer.readableBytes
      }
    } catch let error as VaultError {
      return (received, error)
    } catch {
      // The connection ended or stalled.
    }
    return (received, nil)
  }

  /// An upload's length as its Content-Length gives it, or why it is refused before any of
  /// it is read.
  private enum DeclaredLength {
    case length(Int)
    case refused(UploadRefusal)
  }

  private func declaredLength(_ lengthText: String?, name: String) -> DeclaredLength {
    guard let lengthText else {
      return .refused(UploadRefusal(status: .lengthRequired, reason: "the upload needs a Content-Length"))
    }
    guard lengthText.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
      let length = Int(lengthText)
    else {
      return .refused(UploadRefusal(status: .badRequest, reason: "Content-Length is not a number"))
    }
    let limit = intake.sizeLimit(forName: name)
    guard length <= limit.bytes else {
      return .refused(UploadRefusal(status: .contentTooLarge, reason: "larger than the \(limit.text) limit"))
    }
    guard length > 0 else {
      return .refused(UploadRefusal(status: .unprocessableContent, reason: "empty file"))
    }
    return .length(length)
  }

  /// Counts an upload's end (`tally.uploadStarted` was called) and tells the terminal.
  private func report(_ event: UploadEvent) {
    tally.uploadEnded(event)
    reportEvent(event)
  }

  private func refuse(_ name: String, _ refusal: UploadRefusal, _ request: Request, bodyRead: Bool = false)
    -> Reply
  {
    report(.refused(name: name, reason: refusal.detail))
    return json(
      refusal.status, UploadAnswer(refused: name, reason: refusal.reason), request: request,
      bodyRead: bodyRead)
  }

  private func json(
    _ status: HTTPResponse.Status, _ answer: UploadAnswer, request: Request, bodyRead: Bool = false
  ) -> Reply {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let body = Array((try? encoder.encode(answer)) ?? Data("{}".utf8))
    var fields = Self.commonFields
    fields[.contentType] = "application/json"
    fields[.contentLength] = String(body.count)
    if !bodyRead, Self.mayHaveBody(request) { fields[ConnectionGuard.closeMarker] = "1" }
    return Reply(head: HTTPResponse(status: status, headerFields: fields), body: body)
  }
}

/// The JSON an upload is answered with.
struct UploadAnswer: Encodable {
  var outcome: String
  var name: String
  var bytes: Int?
  var reason: String?

  init(outcome: String, name: String, bytes: Int? = nil) {
    self.outcome = outcome
    self.name = name
    self.bytes = bytes
  }

  init(refused name: String, reason: String) {
    outcome = "refused"
    self.name = name
    self.reason = reason
  }
}
