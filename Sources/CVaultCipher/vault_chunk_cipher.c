#include "vault_chunk_cipher.h"

#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <pthread.h>
#include <sodium.h>
#include <string.h>

enum { tag_length = 16, subkey_length = 32, ietf_nonce_length = 12 };

static EVP_CIPHER *chacha20_poly1305;
static pthread_once_t fetched = PTHREAD_ONCE_INIT;

// OpenSSL's ChaCha20-Poly1305 from its default provider in a library context of our own,
// without reading openssl.cnf (whose settings, OPENSSL_CONF included, could load other
// code into the process that holds the keys).
static void fetch_cipher(void) {
  OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
  OSSL_LIB_CTX *library = OSSL_LIB_CTX_new();
  if (library == NULL || OSSL_PROVIDER_load(library, "default") == NULL) return;
  chacha20_poly1305 = EVP_CIPHER_fetch(library, "ChaCha20-Poly1305", NULL);
}

// The subkey and the 12-byte nonce of XChaCha20-Poly1305's `nonce` under `key`.
static void derive(unsigned char subkey[subkey_length], unsigned char ietf_nonce[ietf_nonce_length],
                   const unsigned char nonce[24], const unsigned char key[32]) {
  crypto_core_hchacha20(subkey, nonce, key, NULL);
  memset(ietf_nonce, 0, 4);
  memcpy(ietf_nonce + 4, nonce + 16, 8);
}

// A context keyed to seal (`encrypting` 1) or open (0), with the additional data taken in;
// NULL if OpenSSL fails.
static EVP_CIPHER_CTX *start(int encrypting, const unsigned char *additional, size_t additional_count,
                             const unsigned char nonce[24], const unsigned char key[32]) {
  pthread_once(&fetched, fetch_cipher);
  if (chacha20_poly1305 == NULL || additional_count > INT_MAX) return NULL;
  unsigned char subkey[subkey_length], ietf_nonce[ietf_nonce_length];
  derive(subkey, ietf_nonce, nonce, key);
  EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
  int length = 0;
  int ok = context != NULL &&
           EVP_CipherInit_ex2(context, chacha20_poly1305, subkey, ietf_nonce, encrypting, NULL) == 1 &&
           EVP_CipherUpdate(context, NULL, &length, additional, (int)additional_count) == 1;
  sodium_memzero(subkey, sizeof subkey);
  if (!ok) {
    EVP_CIPHER_CTX_free(context);  // it wipes the key schedule
    return NULL;
  }
  return context;
}

int vault_xchacha20poly1305_seal(unsigned char *sealed, const unsigned char *plaintext, size_t count,
                                 const unsigned char *additional, size_t additional_count,
                                 const unsigned char nonce[24], const unsigned char key[32]) {
  if (count > INT_MAX) return -1;
  EVP_CIPHER_CTX *context = start(1, additional, additional_count, nonce, key);
  if (context == NULL) return -1;
  int length = 0, ended = 0;
  int ok = EVP_CipherUpdate(context, sealed, &length, plaintext, (int)count) == 1 &&
           EVP_CipherFinal_ex(context, sealed + length, &ended) == 1 && (size_t)(length + ended) == count &&
           EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, tag_length, sealed + count) == 1;
  EVP_CIPHER_CTX_free(context);
  return ok ? 0 : -1;
}

int vault_xchacha20poly1305_open(unsigned char *plaintext, const unsigned char *sealed, size_t count,
                                 const unsigned char *additional, size_t additional_count,
                                 const unsigned char nonce[24], const unsigned char key[32]) {
  if (count < tag_length) return -1;
  size_t plaintext_count = count - tag_length;
  if (plaintext_count > INT_MAX) return -2;
  EVP_CIPHER_CTX *context = start(0, additional, additional_count, nonce, key);
  if (context == NULL) return -2;
  int length = 0, ended = 0;
  int ok = EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, tag_length, (void *)(sealed + plaintext_count)) == 1 &&
           EVP_CipherUpdate(context, plaintext, &length, sealed, (int)plaintext_count) == 1 &&
           EVP_CipherFinal_ex(context, plaintext + length, &ended) == 1 &&
           (size_t)(length + ended) == plaintext_count;
  EVP_CIPHER_CTX_free(context);
  if (!ok) sodium_memzero(plaintext, plaintext_count);
  return ok ? 0 : -1;
}
