// libcurl, loaded the first time imagelint speaks HTTP (dlopen of its
// SONAME), not when the program starts. Linked at start-up, libcurl and the
// ~30 libraries it pulls in (TLS, Kerberos, LDAP, IDN, SSH, RTMP...) cost
// about 10 ms of every run, Dockerfile checks and --version included, which
// never open a connection (docs/PERFORMANCE.md "Start-up").
#pragma once

#include <curl/curl.h>

#include "imagelint/result.h"

namespace imagelint::registry {

// The libcurl functions imagelint calls, with the types of <curl/curl.h>.
struct CurlLibrary {
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_multi_init) multi_init = nullptr;
  decltype(&::curl_multi_add_handle) multi_add_handle = nullptr;
  decltype(&::curl_multi_remove_handle) multi_remove_handle = nullptr;
  decltype(&::curl_multi_perform) multi_perform = nullptr;
  decltype(&::curl_multi_poll) multi_poll = nullptr;
  decltype(&::curl_multi_info_read) multi_info_read = nullptr;
  decltype(&::curl_multi_cleanup) multi_cleanup = nullptr;
  decltype(&::curl_multi_strerror) multi_strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
  decltype(&::curl_url) url = nullptr;
  decltype(&::curl_url_set) url_set = nullptr;
  decltype(&::curl_url_get) url_get = nullptr;
  decltype(&::curl_url_cleanup) url_cleanup = nullptr;
  decltype(&::curl_free) free = nullptr;
};

// The SONAME loaded: the one the Debian package libcurl4 provides, and the
// one a link against libcurl4-openssl-dev records.
inline constexpr const char* kCurlSoname = "libcurl.so.4";

// libcurl, loaded and initialised (curl_global_init) once per process; an
// error naming the library and what is missing when it cannot be loaded.
Result<const CurlLibrary*> LoadCurl();

}  // namespace imagelint::registry
