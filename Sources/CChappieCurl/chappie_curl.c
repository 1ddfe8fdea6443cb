#include "chappie_curl.h"

#include <dlfcn.h>
#include <pthread.h>

// Numbers from curl.h (stable ABI since libcurl 7.x): only what this file itself needs.
enum {
    CURL_GLOBAL_ALL = 3,
    CURLMSG_DONE = 1,
};

typedef struct {
    int msg;
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
} chappie_curl_message;

static struct {
    int (*global_init)(long);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_getinfo)(void *, int, ...);
    const char *(*easy_strerror)(int);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
    void *(*multi_init)(void);
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_perform)(void *, int *);
    int (*multi_poll)(void *, void *, unsigned int, int, int *);
    int (*multi_wakeup)(void *);
    chappie_curl_message *(*multi_info_read)(void *, int *);
    int (*multi_cleanup)(void *);
    int (*easy_pause)(void *, int);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
#define CHAPPIE_LOAD(field, name)                        \
    *(void **)(&curl.field) = dlsym(library, name);      \
    if (curl.field == NULL) return;
    CHAPPIE_LOAD(global_init, "curl_global_init")
    CHAPPIE_LOAD(easy_init, "curl_easy_init")
    CHAPPIE_LOAD(easy_cleanup, "curl_easy_cleanup")
    CHAPPIE_LOAD(easy_setopt, "curl_easy_setopt")
    CHAPPIE_LOAD(easy_getinfo, "curl_easy_getinfo")
    CHAPPIE_LOAD(easy_strerror, "curl_easy_strerror")
    CHAPPIE_LOAD(slist_append, "curl_slist_append")
    CHAPPIE_LOAD(slist_free_all, "curl_slist_free_all")
    CHAPPIE_LOAD(multi_init, "curl_multi_init")
    CHAPPIE_LOAD(multi_add_handle, "curl_multi_add_handle")
    CHAPPIE_LOAD(multi_remove_handle, "curl_multi_remove_handle")
    CHAPPIE_LOAD(multi_perform, "curl_multi_perform")
    CHAPPIE_LOAD(multi_poll, "curl_multi_poll")
    CHAPPIE_LOAD(multi_wakeup, "curl_multi_wakeup")
    CHAPPIE_LOAD(multi_info_read, "curl_multi_info_read")
    CHAPPIE_LOAD(multi_cleanup, "curl_multi_cleanup")
    CHAPPIE_LOAD(easy_pause, "curl_easy_pause")
#undef CHAPPIE_LOAD
    if (curl.global_init(CURL_GLOBAL_ALL) != 0) return;
    load_status = 0;
}

int chappie_curl_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

void *chappie_curl_easy_init(void) { return curl.easy_init(); }
void chappie_curl_easy_cleanup(void *easy) { curl.easy_cleanup(easy); }
int chappie_curl_easy_setopt_long(void *easy, int option, long value) { return curl.easy_setopt(easy, option, value); }
int chappie_curl_easy_setopt_pointer(void *easy, int option, const void *value) { return curl.easy_setopt(easy, option, value); }
int chappie_curl_easy_setopt_offset(void *easy, int option, int64_t value) { return curl.easy_setopt(easy, option, (long long)value); }
int chappie_curl_easy_setopt_data_callback(void *easy, int option, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl.easy_setopt(easy, option, callback);
}
int chappie_curl_easy_getinfo_long(void *easy, int info, long *value) { return curl.easy_getinfo(easy, info, value); }
const char *chappie_curl_easy_strerror(int code) { return curl.easy_strerror(code); }

void *chappie_curl_slist_append(void *list, const char *string) { return curl.slist_append(list, string); }
void chappie_curl_slist_free_all(void *list) { curl.slist_free_all(list); }

void *chappie_curl_multi_init(void) { return curl.multi_init(); }
int chappie_curl_multi_add_handle(void *multi, void *easy) { return curl.multi_add_handle(multi, easy); }
int chappie_curl_multi_remove_handle(void *multi, void *easy) { return curl.multi_remove_handle(multi, easy); }
int chappie_curl_multi_perform(void *multi, int *running) { return curl.multi_perform(multi, running); }
int chappie_curl_multi_poll(void *multi, int timeout_milliseconds) {
    return curl.multi_poll(multi, NULL, 0, timeout_milliseconds, NULL);
}
int chappie_curl_multi_wakeup(void *multi) { return curl.multi_wakeup(multi); }
void *chappie_curl_multi_next_done(void *multi, int *result) {
    int queued = 0;
    chappie_curl_message *message;
    while ((message = curl.multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *result = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}
void chappie_curl_multi_cleanup(void *multi) { curl.multi_cleanup(multi); }
int chappie_curl_easy_pause(void *easy, int bitmask) { return curl.easy_pause(easy, bitmask); }
