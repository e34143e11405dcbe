import Foundation

/// Calls `body` with `strings` as a NULL-terminated array of C strings (an argv or envp for
/// a process to start), freed when it returns.
func withCStringArray<Result>(
  _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
) -> Result {
  var pointers = strings.map { strdup($0) }
  pointers.append(nil)
  defer { for pointer in pointers { free(pointer) } }
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
