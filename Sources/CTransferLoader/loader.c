// libcurl's and libcrypto's functions, as shelf calls them, through pointers filled by dlopen and dlsym (see
// include/CTransferLoader.h). Each definition has hidden visibility, so that the libraries, once loaded, never bind
// to these stand-ins instead of to each other.
//
// To call another libcurl or libcrypto function from Swift, add it in three places below: its pointer in the table,
// its name in the list of symbols, and its definition; without them the link fails, naming it.
#define CURL_DISABLE_TYPECHECK /* curl.h's type-checking macros would rename the variadic stand-ins below */
#include <curl/curl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "CTransferLoader.h"

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)
static const char curl_name[] = "libcurl.so.4";
static const char crypto_name[] = "libcrypto.so." STRINGIFY(OPENSSL_VERSION_MAJOR);

static struct {
    CURLcode (*curl_global_init)(long flags);
    CURL *(*curl_easy_init)(void);
    CURLcode (*curl_easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*curl_easy_perform)(CURL *curl);
    void (*curl_easy_cleanup)(CURL *curl);
    CURLcode (*curl_easy_getinfo)(CURL *curl, CURLINFO info, ...);
    void (*curl_easy_reset)(CURL *curl);
    const char *(*curl_easy_strerror)(CURLcode code);
    const struct curl_easyoption *(*curl_easy_option_by_id)(CURLoption id);
    struct curl_slist *(*curl_slist_append)(struct curl_slist *list, const char *data);
    void (*curl_slist_free_all)(struct curl_slist *list);
    CURLM *(*curl_multi_init)(void);
    CURLMcode (*curl_multi_setopt)(CURLM *multi, CURLMoption option, ...);
    CURLMcode (*curl_multi_add_handle)(CURLM *multi, CURL *curl);
    CURLMcode (*curl_multi_remove_handle)(CURLM *multi, CURL *curl);
    CURLMcode (*curl_multi_perform)(CURLM *multi, int *running);
    CURLMcode (*curl_multi_poll)(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms, int *ret);
    CURLMsg *(*curl_multi_info_read)(CURLM *multi, int *msgs_in_queue);
    CURLMcode (*curl_multi_cleanup)(CURLM *multi);
    const char *(*curl_multi_strerror)(CURLMcode code);
} curl;

static struct {
    unsigned long (*ERR_get_error)(void);
    void (*ERR_clear_error)(void);
    void (*ERR_error_string_n)(unsigned long e, char *buf, size_t len);
    EVP_MD_CTX *(*EVP_MD_CTX_new)(void);
    void (*EVP_MD_CTX_free)(EVP_MD_CTX *ctx);
    int (*EVP_MD_CTX_copy_ex)(EVP_MD_CTX *out, const EVP_MD_CTX *in);
    int (*EVP_DigestInit_ex)(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl);
    int (*EVP_DigestUpdate)(EVP_MD_CTX *ctx, const void *d, size_t cnt);
    int (*EVP_DigestFinal_ex)(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s);
    const EVP_MD *(*EVP_sha256)(void);
} crypto;

struct symbol {
    const char *name;
    size_t offset;
};

#define SYMBOL(name) {#name, offsetof(__typeof__(TABLE), name)}
#define TABLE curl
static const struct symbol curl_symbols[] = {
    SYMBOL(curl_global_init),
    SYMBOL(curl_easy_init),
    SYMBOL(curl_easy_setopt),
    SYMBOL(curl_easy_perform),
    SYMBOL(curl_easy_cleanup),
    SYMBOL(curl_easy_getinfo),
    SYMBOL(curl_easy_reset),
    SYMBOL(curl_easy_strerror),
    SYMBOL(curl_easy_option_by_id),
    SYMBOL(curl_slist_append),
    SYMBOL(curl_slist_free_all),
    SYMBOL(curl_multi_init),
    SYMBOL(curl_multi_setopt),
    SYMBOL(curl_multi_add_handle),
    SYMBOL(curl_multi_remove_handle),
    SYMBOL(curl_multi_perform),
    SYMBOL(curl_multi_poll),
    SYMBOL(curl_multi_info_read),
    SYMBOL(curl_multi_cleanup),
    SYMBOL(curl_multi_strerror),
};
#undef TABLE
#define TABLE crypto
static const struct symbol crypto_symbols[] = {
    SYMBOL(ERR_get_error),
    SYMBOL(ERR_clear_error),
    SYMBOL(ERR_error_string_n),
    SYMBOL(EVP_MD_CTX_new),
    SYMBOL(EVP_MD_CTX_free),
    SYMBOL(EVP_MD_CTX_copy_ex),
    SYMBOL(EVP_DigestInit_ex),
    SYMBOL(EVP_DigestUpdate),
    SYMBOL(EVP_DigestFinal_ex),
    SYMBOL(EVP_sha256),
};
#undef TABLE

/// Opens `name` and fills `table` from it; NULL, or why not in `message`. The table stays empty on a failure, so
/// every stand-in then fails as its library would.
static const char *load(const char *name, const struct symbol *symbols, size_t wanted, void *table, size_t table_size,
                        char *message, size_t size) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *reason = dlerror();
        snprintf(message, size, "%s", reason ? reason : name);
        return message;
    }
    for (size_t s = 0; s < wanted; s++) {
        void *address = dlsym(handle, symbols[s].name);
        if (!address) {
            snprintf(message, size, "%s lacks %s, which shelf calls", name, symbols[s].name);
            memset(table, 0, table_size);
            return message;
        }
        memcpy((char *)table + symbols[s].offset, &address, sizeof address);
    }
    return NULL;
}

static char curl_message[512];
static const char *curl_failure;
static void load_curl(void) {
    curl_failure = load(curl_name, curl_symbols, sizeof curl_symbols / sizeof curl_symbols[0], &curl, sizeof curl,
                        curl_message, sizeof curl_message);
}

const char *CTransfer_load_curl(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_curl);
    return curl_failure;
}

static char crypto_message[512];
static const char *crypto_failure;
static void load_crypto(void) {
    crypto_failure = load(crypto_name, crypto_symbols, sizeof crypto_symbols / sizeof crypto_symbols[0], &crypto,
                          sizeof crypto, crypto_message, sizeof crypto_message);
}

const char *CTransfer_load_crypto(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_crypto);
    return crypto_failure;
}

const char *CTransfer_curl_library(void) { return curl_name; }
const char *CTransfer_crypto_library(void) { return crypto_name; }

#define STAND_IN __attribute__((visibility("hidden")))

// The stand-ins. Each is called after its library's load returned NULL; if it did not (a cleanup after a failed
// load, say), it does nothing and fails as libcurl or libcrypto would: an error code, NULL, or zero.
//
// The variadic three take one argument after the option, whose type the option's number gives (curl.h's
// CURLOPTTYPE_*: long below 10000, a data or function pointer below 30000, curl_off_t below 40000, a blob pointer
// after); getinfo's is always a pointer.
static CURLcode forward_setopt(CURL *handle, CURLoption option, va_list arguments) {
    if (option < CURLOPTTYPE_OBJECTPOINT) return curl.curl_easy_setopt(handle, option, va_arg(arguments, long));
    if (option < CURLOPTTYPE_FUNCTIONPOINT) return curl.curl_easy_setopt(handle, option, va_arg(arguments, void *));
    if (option < CURLOPTTYPE_OFF_T) return curl.curl_easy_setopt(handle, option, va_arg(arguments, void (*)(void)));
    if (option < CURLOPTTYPE_BLOB) return curl.curl_easy_setopt(handle, option, va_arg(arguments, curl_off_t));
    return curl.curl_easy_setopt(handle, option, va_arg(arguments, void *));
}

STAND_IN CURLcode curl_easy_setopt(CURL *handle, CURLoption option, ...) {
    if (!curl.curl_easy_setopt) return CURLE_FAILED_INIT;
    va_list arguments;
    va_start(arguments, option);
    CURLcode result = forward_setopt(handle, option, arguments);
    va_end(arguments);
    return result;
}
STAND_IN CURLcode curl_easy_getinfo(CURL *handle, CURLINFO info, ...) {
    if (!curl.curl_easy_getinfo) return CURLE_FAILED_INIT;
    va_list arguments;
    va_start(arguments, info);
    void *pointer = va_arg(arguments, void *);
    va_end(arguments);
    return curl.curl_easy_getinfo(handle, info, pointer);
}
STAND_IN CURLMcode curl_multi_setopt(CURLM *multi, CURLMoption option, ...) {
    if (!curl.curl_multi_setopt) return CURLM_INTERNAL_ERROR;
    va_list arguments;
    va_start(arguments, option);
    CURLMcode result;
    if (option < CURLOPTTYPE_OBJECTPOINT) result = curl.curl_multi_setopt(multi, option, va_arg(arguments, long));
    else if (option < CURLOPTTYPE_FUNCTIONPOINT) result = curl.curl_multi_setopt(multi, option, va_arg(arguments, void *));
    else if (option < CURLOPTTYPE_OFF_T) result = curl.curl_multi_setopt(multi, option, va_arg(arguments, void (*)(void)));
    else result = curl.curl_multi_setopt(multi, option, va_arg(arguments, curl_off_t));
    va_end(arguments);
    return result;
}
STAND_IN CURLcode curl_global_init(long flags) {
    if (!curl.curl_global_init) return CURLE_FAILED_INIT;
    return curl.curl_global_init(flags);
}
STAND_IN CURL *curl_easy_init(void) {
    if (!curl.curl_easy_init) return NULL;
    return curl.curl_easy_init();
}
STAND_IN CURLcode curl_easy_perform(CURL *handle) {
    if (!curl.curl_easy_perform) return CURLE_FAILED_INIT;
    return curl.curl_easy_perform(handle);
}
STAND_IN void curl_easy_cleanup(CURL *handle) {
    if (!curl.curl_easy_cleanup) return;
    curl.curl_easy_cleanup(handle);
}
STAND_IN void curl_easy_reset(CURL *handle) {
    if (!curl.curl_easy_reset) return;
    curl.curl_easy_reset(handle);
}
STAND_IN const char *curl_easy_strerror(CURLcode code) {
    if (!curl.curl_easy_strerror) return "libcurl is not loaded";
    return curl.curl_easy_strerror(code);
}
STAND_IN const struct curl_easyoption *curl_easy_option_by_id(CURLoption id) {
    if (!curl.curl_easy_option_by_id) return NULL;
    return curl.curl_easy_option_by_id(id);
}
STAND_IN struct curl_slist *curl_slist_append(struct curl_slist *list, const char *data) {
    if (!curl.curl_slist_append) return NULL;
    return curl.curl_slist_append(list, data);
}
STAND_IN void curl_slist_free_all(struct curl_slist *list) {
    if (!curl.curl_slist_free_all) return;
    curl.curl_slist_free_all(list);
}
STAND_IN CURLM *curl_multi_init(void) {
    if (!curl.curl_multi_init) return NULL;
    return curl.curl_multi_init();
}
STAND_IN CURLMcode curl_multi_add_handle(CURLM *multi, CURL *handle) {
    if (!curl.curl_multi_add_handle) return CURLM_INTERNAL_ERROR;
    return curl.curl_multi_add_handle(multi, handle);
}
STAND_IN CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    if (!curl.curl_multi_remove_handle) return CURLM_INTERNAL_ERROR;
    return curl.curl_multi_remove_handle(multi, handle);
}
STAND_IN CURLMcode curl_multi_perform(CURLM *multi, int *running) {
    if (!curl.curl_multi_perform) return CURLM_INTERNAL_ERROR;
    return curl.curl_multi_perform(multi, running);
}
STAND_IN CURLMcode curl_multi_poll(CURLM *multi, struct curl_waitfd extra_fds[], unsigned int extra_nfds, int timeout_ms,
                                   int *ret) {
    if (!curl.curl_multi_poll) return CURLM_INTERNAL_ERROR;
    return curl.curl_multi_poll(multi, extra_fds, extra_nfds, timeout_ms, ret);
}
STAND_IN CURLMsg *curl_multi_info_read(CURLM *multi, int *msgs_in_queue) {
    if (!curl.curl_multi_info_read) return NULL;
    return curl.curl_multi_info_read(multi, msgs_in_queue);
}
STAND_IN CURLMcode curl_multi_cleanup(CURLM *multi) {
    if (!curl.curl_multi_cleanup) return CURLM_INTERNAL_ERROR;
    return curl.curl_multi_cleanup(multi);
}
STAND_IN const char *curl_multi_strerror(CURLMcode code) {
    if (!curl.curl_multi_strerror) return "libcurl is not loaded";
    return curl.curl_multi_strerror(code);
}

STAND_IN unsigned long ERR_get_error(void) {
    if (!crypto.ERR_get_error) return 0;
    return crypto.ERR_get_error();
}
STAND_IN void ERR_clear_error(void) {
    if (!crypto.ERR_clear_error) return;
    crypto.ERR_clear_error();
}
STAND_IN void ERR_error_string_n(unsigned long e, char *buf, size_t len) {
    if (!crypto.ERR_error_string_n) {
        if (len > 0) buf[0] = 0;
        return;
    }
    crypto.ERR_error_string_n(e, buf, len);
}
STAND_IN EVP_MD_CTX *EVP_MD_CTX_new(void) {
    if (!crypto.EVP_MD_CTX_new) return NULL;
    return crypto.EVP_MD_CTX_new();
}
STAND_IN void EVP_MD_CTX_free(EVP_MD_CTX *ctx) {
    if (!crypto.EVP_MD_CTX_free) return;
    crypto.EVP_MD_CTX_free(ctx);
}
STAND_IN int EVP_MD_CTX_copy_ex(EVP_MD_CTX *out, const EVP_MD_CTX *in) {
    if (!crypto.EVP_MD_CTX_copy_ex) return 0;
    return crypto.EVP_MD_CTX_copy_ex(out, in);
}
STAND_IN int EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl) {
    if (!crypto.EVP_DigestInit_ex) return 0;
    return crypto.EVP_DigestInit_ex(ctx, type, impl);
}
STAND_IN int EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *d, size_t cnt) {
    if (!crypto.EVP_DigestUpdate) return 0;
    return crypto.EVP_DigestUpdate(ctx, d, cnt);
}
STAND_IN int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s) {
    if (!crypto.EVP_DigestFinal_ex) return 0;
    return crypto.EVP_DigestFinal_ex(ctx, md, s);
}
STAND_IN const EVP_MD *EVP_sha256(void) {
    if (!crypto.EVP_sha256) return NULL;
    return crypto.EVP_sha256();
}
