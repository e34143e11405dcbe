/// Memory a signal handler reads: `count` elements allocated once, at an address that never
/// changes, and never freed (a handler may run at any moment until the process ends).
///
/// `@unchecked Sendable` because a handler is a C function pointer given to `sigaction`: it
/// runs on whichever thread the kernel picks, in the middle of anything, so neither a lock
/// (taking one there could deadlock) nor an isolation or `Sendable` check can describe
/// what it touches. What keeps the memory safe instead is how the handlers' owners use it:
/// they fill it before the handler that reads it is installed, and rewrite it only with
/// that handler's signals blocked (see `ScreenSignals` and `TerminalRestore`). A pointer
/// rather than a global `var`: Swift checks exclusive access to a global, and a handler
/// interrupting an access to it would trap.
struct HandlerMemory<Element>: @unchecked Sendable {
  private let start: UnsafeMutablePointer<Element>
  let count: Int

  init(repeating element: Element, count: Int) {
    start = UnsafeMutablePointer<Element>.allocate(capacity: count)
    start.initialize(repeating: element, count: count)
    self.count = count
  }

  /// The address of element `index`, for C calls that take one.
  func pointer(_ index: Int = 0) -> UnsafeMutablePointer<Element> {
    precondition(index >= 0 && index < count)
    return start + index
  }

  subscript(index: Int) -> Element {
    get { pointer(index).pointee }
    nonmutating set { pointer(index).pointee = newValue }
  }
}
