import Foundation

/// Where the server listens and how its address is written.
public enum ServeAddress {
  /// The first IPv4 address of an interface that is up and not loopback: the address a
  /// phone on the same network reaches. Nil when the machine has none.
  public static func lanAddress() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return nil }
    defer { freeifaddrs(list) }
    var cursor: UnsafeMutablePointer<ifaddrs>? = first
    while let entry = cursor {
      defer { cursor = entry.pointee.ifa_next }
      let flags = Int32(entry.pointee.ifa_flags)
      guard flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0,
        let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET)
      else { continue }
      var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
      let found = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { socketAddress in
        var bytes = socketAddress.pointee.sin_addr
        return inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)) != nil
      }
      if found {
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      }
    }
    return nil
  }

  /// Whether `text` is an IPv4 or IPv6 literal.
  public static func isIPAddress(_ text: String) -> Bool {
    (try? ServerCertificate.addressBytes(text)) != nil
  }

  /// `192.168.1.20:8443`, or `[fe80::1]:8443` for IPv6.
  public static func hostPort(_ address: String, _ port: Int) -> String {
    address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
  }
}
