// OpenSSL 3's libcrypto (libssl-dev): AES-256-GCM, HMAC-SHA256 and the random generator, for the
// encryption at rest of MediaAssetsEncryption. Nothing here is implemented by the package.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>
