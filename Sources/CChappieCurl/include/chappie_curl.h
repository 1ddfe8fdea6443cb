// The system libcurl (libcurl.so.4), loaded at run time and called through non-variadic wrappers
// that Swift can call (curl_easy_setopt and friends are C variadic functions). Chappie's Linux
// HTTP transport uses it; nothing here links libcurl at build time, and no curl header is needed:
// the few option and info numbers the transport uses are passed in from Swift, which names them.
#ifndef CHAPPIE_CURL_H
#define CHAPPIE_CURL_H

#include <stddef.h>
#include <stdint.h>

/// Loads libcurl and its functions once (thread-safe); 0 when it is usable, -1 when not.
int chappie_curl_load(void);

void *chappie_curl_easy_init(void);
void chappie_curl_easy_cleanup(void *easy);
int chappie_curl_easy_setopt_long(void *easy, int option, long value);
int chappie_curl_easy_setopt_pointer(void *easy, int option, const void *value);
int chappie_curl_easy_setopt_offset(void *easy, int option, int64_t value);
int chappie_curl_easy_setopt_data_callback(void *easy, int option, size_t (*callback)(char *, size_t, size_t, void *));
int chappie_curl_easy_getinfo_long(void *easy, int info, long *value);
const char *chappie_curl_easy_strerror(int code);

void *chappie_curl_slist_append(void *list, const char *string);
void chappie_curl_slist_free_all(void *list);

void *chappie_curl_multi_init(void);
int chappie_curl_multi_add_handle(void *multi, void *easy);
int chappie_curl_multi_remove_handle(void *multi, void *easy);
int chappie_curl_multi_perform(void *multi, int *running);
int chappie_curl_multi_poll(void *multi, int timeout_milliseconds);
int chappie_curl_multi_wakeup(void *multi);
/// Reads the multi handle's messages; returns the easy handle of a finished transfer and sets
/// `result` (its CURLcode), or NULL when no transfer has finished.
void *chappie_curl_multi_next_done(void *multi, int *result);
void chappie_curl_multi_cleanup(void *multi);

/// curl_easy_pause: CURLPAUSE_CONT (0) resumes a transfer paused by its write callback.
int chappie_curl_easy_pause(void *easy, int bitmask);

#endif
