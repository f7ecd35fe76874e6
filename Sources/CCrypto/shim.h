#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H

/* OpenSSL's libcrypto: the EVP digest interface (SHA-256 of downloaded parts) and its error queue. */
#include <openssl/evp.h>
#include <openssl/err.h>

#endif
