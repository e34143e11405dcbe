/* The cryptography floor of the rows whose anchor does no cryptography (export against
 * cp, the mount against gocryptfs, video thumbnails against ffmpegthumbnailer): one core's
 * CPU time for what vault's format makes it do to every byte of an original, in memory,
 * with no I/O. Benchmarks/export, mount and video-thumbs print it beside their rows.
 *
 *   hash     the content hash: keyed BLAKE2b-256 of the whole file, one stream, so it
 *            cannot be split across cores (docs/FORMAT.md, "Keys derived from the master
 *            key");
 *   seal     XChaCha20-Poly1305 of 65536-byte chunks (FORMAT.md, "Seekable blobs"), as
 *            vault computes it: Sources/CVaultCipher, OpenSSL's ChaCha20-Poly1305 under
 *            libsodium's HChaCha20 subkey;
 *   open     the same, decrypting and checking each chunk's tag;
 *   sodium-seal, sodium-open   the same through libsodium's own AEAD, which vault used
 *            before (a third of OpenSSL's speed where AVX-512 is there);
 *   aes-gcm  AES-256-GCM of the same chunks (hardware AES), what gocryptfs uses: what a
 *            format change to it would cost instead;
 *   copy     memcpy of the same bytes, the least any program pays for a byte.
 *
 * Usage: crypto-floor MIB   (build: cc -O2 -I Sources/CVaultCipher/include -o crypto-floor
 * Benchmarks/crypto-floor.c Sources/CVaultCipher/vault_chunk_cipher.c -lsodium -lcrypto)
 * Prints one line per operation: "name seconds-per-GiB", the median of five passes. */

#include <sodium.h>
#include <stdio.h>
#include "vault_chunk_cipher.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { chunk_size = 65536, passes = 5 };

static double cpu_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static int by_value(const void *left, const void *right) {
  double a = *(const double *)left, b = *(const double *)right;
  return (a > b) - (a < b);
}

typedef void (*operation)(unsigned char *data, unsigned char *out, size_t size);

static unsigned char key[32];

static void hash(unsigned char *data, unsigned char *out, size_t size) {
  crypto_generichash_state state;
  crypto_generichash_init(&state, key, sizeof key, 32);
  for (size_t at = 0; at < size; at += chunk_size) {
    crypto_generichash_update(&state, data + at, chunk_size);
  }
  crypto_generichash_final(&state, out, 32);
}

/* An AEAD's encryption, as libsodium declares both: XChaCha20-Poly1305 and AES-256-GCM. */
typedef int (*aead_encrypt)(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                            unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
                            const unsigned char *nsec, const unsigned char *npub, const unsigned char *k);

/* Seals each chunk as vault's blobs do: a nonce of `nonce_bytes` ending in the chunk's index,
 * 16 bytes of tag after each. */
static void seal_chunks(aead_encrypt encrypt, size_t nonce_bytes, unsigned char *data, unsigned char *out,
                        size_t size) {
  unsigned char nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES] = {0};
  for (size_t at = 0, index = 0; at < size; at += chunk_size, index++) {
    memcpy(nonce + nonce_bytes - sizeof index, &index, sizeof index);
    encrypt(out + at + index * 16, NULL, data + at, chunk_size, (const unsigned char *)"VLTB", 6, NULL, nonce,
            key);
  }
}

/* vault's XChaCha20-Poly1305 (Sources/CVaultCipher), declared as libsodium's. */
static int vault_encrypt(unsigned char *c, unsigned long long *clen, const unsigned char *m,
                         unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
                         const unsigned char *nsec, const unsigned char *npub, const unsigned char *k) {
  (void)nsec;
  if (clen != NULL) *clen = mlen + 16;
  return vault_xchacha20poly1305_seal(c, m, mlen, ad, adlen, npub, k);
}

static int vault_decrypt(unsigned char *m, unsigned long long *mlen, unsigned char *nsec, const unsigned char *c,
                         unsigned long long clen, const unsigned char *ad, unsigned long long adlen,
                         const unsigned char *npub, const unsigned char *k) {
  (void)nsec;
  if (mlen != NULL) *mlen = clen - 16;
  return vault_xchacha20poly1305_open(m, c, clen, ad, adlen, npub, k);
}

typedef int (*aead_decrypt)(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                            const unsigned char *c, unsigned long long clen, const unsigned char *ad,
                            unsigned long long adlen, const unsigned char *npub, const unsigned char *k);

static void open_chunks(aead_decrypt decrypt, unsigned char *sealed, unsigned char *out, size_t size) {
  unsigned char nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES] = {0};
  for (size_t at = 0, index = 0; at < size; at += chunk_size, index++) {
    memcpy(nonce + 16, &index, sizeof index);
    if (decrypt(out + at, NULL, NULL, sealed + at + index * 16, chunk_size + 16, (const unsigned char *)"VLTB", 6,
                nonce, key) != 0) {
      fprintf(stderr, "crypto-floor: chunk %zu does not authenticate\n", index);
      exit(1);
    }
  }
}

static void seal(unsigned char *data, unsigned char *out, size_t size) {
  seal_chunks(vault_encrypt, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, data, out, size);
}

static void open_sealed(unsigned char *sealed, unsigned char *out, size_t size) {
  open_chunks(vault_decrypt, sealed, out, size);
}

static void sodium_seal(unsigned char *data, unsigned char *out, size_t size) {
  seal_chunks(crypto_aead_xchacha20poly1305_ietf_encrypt, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, data,
              out, size);
}

static void sodium_open(unsigned char *sealed, unsigned char *out, size_t size) {
  open_chunks(crypto_aead_xchacha20poly1305_ietf_decrypt, sealed, out, size);
}

static void aes_gcm(unsigned char *data, unsigned char *out, size_t size) {
  seal_chunks(crypto_aead_aes256gcm_encrypt, crypto_aead_aes256gcm_NPUBBYTES, data, out, size);
}

static void copy(unsigned char *data, unsigned char *out, size_t size) { memcpy(out, data, size); }

static double seconds_per_gib(operation run, unsigned char *in, unsigned char *out, size_t size) {
  double times[passes];
  for (int pass = 0; pass < passes; pass++) {
    double start = cpu_seconds();
    run(in, out, size);
    times[pass] = cpu_seconds() - start;
  }
  qsort(times, passes, sizeof times[0], by_value);
  return times[passes / 2] * (double)(1u << 30) / (double)size;
}

int main(int argc, char **argv) {
  long mib = argc > 1 ? atol(argv[1]) : 0;
  if (mib <= 0 || sodium_init() < 0) {
    fprintf(stderr, "usage: crypto-floor MIB (a whole number of MiB to time over)\n");
    return 2;
  }
  size_t size = (size_t)mib << 20, sealed_size = size + size / chunk_size * 16;
  unsigned char *plain = malloc(size), *sealed = malloc(sealed_size), *out = malloc(sealed_size);
  if (plain == NULL || sealed == NULL || out == NULL) {
    fprintf(stderr, "crypto-floor: cannot allocate %ld MiB three times\n", mib);
    return 1;
  }
  randombytes_buf(key, sizeof key);
  randombytes_buf(plain, size);
  memset(out, 0, sealed_size);
  seal(plain, sealed, size);
  printf("hash %.3f\n", seconds_per_gib(hash, plain, out, size));
  printf("seal %.3f\n", seconds_per_gib(seal, plain, out, size));
  printf("open %.3f\n", seconds_per_gib(open_sealed, sealed, out, size));
  printf("sodium-seal %.3f\n", seconds_per_gib(sodium_seal, plain, out, size));
  printf("sodium-open %.3f\n", seconds_per_gib(sodium_open, sealed, out, size));
  if (crypto_aead_aes256gcm_is_available()) {
    printf("aes-gcm %.3f\n", seconds_per_gib(aes_gcm, plain, out, size));
  }
  printf("copy %.3f\n", seconds_per_gib(copy, plain, out, size));
  return 0;
}
