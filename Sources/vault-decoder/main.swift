import CVaultSandbox
import Foundation
import VaultCore
import VaultDecoder

// The decoder helper: vault starts it with a socket as descriptor 3 and nothing else of its
// own. It confines itself (Sandbox.enter) before it reads its first request, which is
// before it sees any byte of a file, then answers requests until vault closes the socket.

let socketDescriptor: Int32 = 3

func option(_ name: String) -> UInt64? {
  let arguments = CommandLine.arguments
  guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
  return UInt64(arguments[index + 1])
}

guard let memoryMiB = option("--memory-mib"), let cpuSeconds = option("--cpu-seconds") else {
  FileHandle.standardError.write(
    Data("vault-decoder: started by vault only (--memory-mib, --cpu-seconds)\n".utf8))
  exit(64)
}

DecoderService.prepare()
if let failure = Sandbox.enter(memoryBytes: memoryMiB << 20, cpuSeconds: cpuSeconds, socket: socketDescriptor)
{
  FileHandle.standardError.write(Data("vault-decoder: cannot confine itself: \(failure)\n".utf8))
  exit(71)
}
DecoderService.serve(descriptor: socketDescriptor) { fault in
  switch fault {
  case .open: _ = vault_sandbox_try_open()
  case .socket: _ = vault_sandbox_try_socket()
  case .execve: _ = vault_sandbox_try_execve()
  case .signalOtherProcess: _ = vault_sandbox_try_signal_other()
  case .executableMemory: _ = vault_sandbox_try_executable_memory()
  case .spin, .spinAtNextFrame: Sandbox.spin()
  case .exhaustMemory: Sandbox.exhaustMemory()
  }
}
