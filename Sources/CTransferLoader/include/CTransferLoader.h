#ifndef SHELF_CTRANSFER_LOADER_H
#define SHELF_CTRANSFER_LOADER_H
// libcurl and OpenSSL's libcrypto are opened with dlopen, not linked, so that the commands that never go to the
// network (`shelf list`, `show`, `status`, `--version`…) do not pay for them: libcurl brings about 30 libraries
// (GnuTLS, Kerberos, LDAP, SSH…) and libcrypto binds 3,400 symbols, about 7 ms of every start-up on this machine.
// The first transfer, or the first SHA-256 of a part, loads them.
//
// loader.c defines, with hidden visibility, each libcurl and libcrypto function shelf calls, as a call through a
// pointer that the load fills with dlsym; a function used without a line there fails the link, naming it.
// (The same as CPlaybackLoader does for FFmpeg and SDL2.)

/// NULL once libcurl (libcurl.so.4) is open with every function shelf calls; else one line saying why not
/// (dlerror's). The first call loads; every other call, from any thread, waits for that one and returns the same.
const char *CTransfer_load_curl(void);

/// The same for OpenSSL's libcrypto (libcrypto.so.3).
const char *CTransfer_load_crypto(void);

/// The file names the loader opens, for messages.
const char *CTransfer_curl_library(void);
const char *CTransfer_crypto_library(void);
#endif
