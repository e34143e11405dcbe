import CVaultImaging

/// Encodes RGB pictures as baseline JPEG through libjpeg-turbo.
package enum JPEGEncoder {
  package static func encode(_ image: RGBImage, quality: Int) throws -> [UInt8] {
    var output: UnsafeMutablePointer<UInt8>?
    var length = 0
    var message = [CChar](repeating: 0, count: Int(VAULT_IMAGING_MESSAGE_LENGTH))
    let status = image.pixels.withUnsafeBufferPointer { pixels in
      vault_jpeg_encode_rgb(
        pixels.baseAddress, UInt32(image.width), UInt32(image.height), Int32(quality), &output,
        &length, &message, message.count)
    }
    guard status == 0, let output else {
      throw VaultError.decodeFailed(path: "thumbnail", reason: String(nulTerminated: message))
    }
    defer { vault_imaging_free(output) }
    return Array(UnsafeBufferPointer(start: output, count: length))
  }
}
