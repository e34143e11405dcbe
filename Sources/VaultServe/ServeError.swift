/// What stops `vault serve` from serving. Messages are one lowercase line.
public enum ServeError: Error, Equatable, CustomStringConvertible {
  /// The bind address is not an IPv4 or IPv6 literal.
  case invalidAddress(String)
  /// The socket could not be bound: the address and port, and the system's reason.
  case cannotListen(address: String, port: Int, reason: String)

  public var description: String {
    switch self {
    case .invalidAddress(let text):
      return "'\(text)' is not an IPv4 or IPv6 address"
    case .cannotListen(let address, let port, let reason):
      return "cannot listen on \(ServeAddress.hostPort(address, port)): \(reason)"
    }
  }
}
