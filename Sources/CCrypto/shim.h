#ifndef LANDMARKER_CCRYPTO_SHIM_H
#define LANDMARKER_CCRYPTO_SHIM_H

/*
 * OpenSSL's libcrypto, for SHA-256 through the EVP digest API (EVP_MD_CTX_new,
 * EVP_DigestInit_ex with EVP_sha256, EVP_DigestUpdate, EVP_DigestFinal_ex),
 * which OpenSSL 3 keeps undeprecated.
 */
#include <openssl/evp.h>

#endif
