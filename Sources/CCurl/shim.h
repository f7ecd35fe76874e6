#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt and friends are variadic, which Swift does not import: one typed wrapper per argument type. */
static inline CURLcode CCurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode CCurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode CCurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode CCurl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode CCurl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
typedef size_t (*CCurl_data_callback)(char *buffer, size_t size, size_t count, void *context);
static inline CURLcode CCurl_setopt_data_callback(CURL *handle, CURLoption option, CCurl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
typedef int (*CCurl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode CCurl_setopt_progress_callback(CURL *handle, CURLoption option, CCurl_progress_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode CCurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode CCurl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode CCurl_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode CCurl_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}
/* CURLAUTH_* are casts in macros, which Swift does not import. */
static inline long CCurl_auth_basic(void) { return (long)CURLAUTH_BASIC; }
static inline long CCurl_auth_digest(void) { return (long)CURLAUTH_DIGEST; }
static inline CURLMcode CCurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

#endif
