#ifndef VAULT_CHUNK_CIPHER_H
#define VAULT_CHUNK_CIPHER_H

#include <stddef.h>

// XChaCha20-Poly1305 (IETF), as libsodium's crypto_aead_xchacha20poly1305_ietf_encrypt and
// _decrypt compute it, byte for byte, but with OpenSSL's ChaCha20-Poly1305 for the bulk:
// libsodium 1.0.18 has no AVX-512 ChaCha20 nor Poly1305, and on this kind of machine its
// AEAD runs at a third of OpenSSL's speed (0.65 against 0.21 s a GiB in 64 KiB chunks).
// The construction is libsodium's: HChaCha20 of the key and the nonce's first 16 bytes is
// the subkey, and the nonce of RFC 8439's ChaCha20-Poly1305 is four zero bytes and the
// nonce's last 8.

// Seals `count` bytes at `plaintext` into `sealed` (`count` + 16 bytes: the ciphertext, then
// the tag). 0 on success, -1 if OpenSSL fails (out of memory).
int vault_xchacha20poly1305_seal(
    unsigned char *sealed, const unsigned char *plaintext, size_t count, const unsigned char *additional,
    size_t additional_count, const unsigned char nonce[24], const unsigned char key[32]);

// Opens `count` sealed bytes (ciphertext and tag) into `plaintext` (`count` - 16 bytes).
// 0 when they authenticate; -1 when they do not, with `plaintext` wiped (OpenSSL decrypts
// before it checks the tag, so what it wrote there is unauthenticated); -2 when OpenSSL
// cannot open anything (its cipher or a context could not be had: out of memory), which
// says nothing of the bytes.
int vault_xchacha20poly1305_open(
    unsigned char *plaintext, const unsigned char *sealed, size_t count, const unsigned char *additional,
    size_t additional_count, const unsigned char nonce[24], const unsigned char key[32]);

#endif
