#include "registry/curl_library.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

namespace imagelint::registry {
namespace {

template <class Function>
bool Resolve(void* handle, const char* name, Function& slot, std::string& missing) {
  slot = reinterpret_cast<Function>(dlsym(handle, name));
  if (slot == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return slot != nullptr;
}

Result<const CurlLibrary*> Load() {
  // RTLD_LOCAL: its symbols serve this table only; RTLD_NOW: a library too
  // old for one of the functions fails here, not in the middle of a request.
  void* handle = dlopen(kCurlSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return MakeError(kCurlSoname, std::string("cannot load libcurl (install the libcurl4 package): ") +
                                      (why ? why : "dlopen failed"));
  }
  static CurlLibrary library;
  std::string missing;
  Resolve(handle, "curl_global_init", library.global_init, missing);
  Resolve(handle, "curl_easy_init", library.easy_init, missing);
  Resolve(handle, "curl_easy_setopt", library.easy_setopt, missing);
  Resolve(handle, "curl_easy_getinfo", library.easy_getinfo, missing);
  Resolve(handle, "curl_easy_cleanup", library.easy_cleanup, missing);
  Resolve(handle, "curl_easy_strerror", library.easy_strerror, missing);
  Resolve(handle, "curl_multi_init", library.multi_init, missing);
  Resolve(handle, "curl_multi_add_handle", library.multi_add_handle, missing);
  Resolve(handle, "curl_multi_remove_handle", library.multi_remove_handle, missing);
  Resolve(handle, "curl_multi_perform", library.multi_perform, missing);
  Resolve(handle, "curl_multi_poll", library.multi_poll, missing);
  Resolve(handle, "curl_multi_info_read", library.multi_info_read, missing);
  Resolve(handle, "curl_multi_cleanup", library.multi_cleanup, missing);
  Resolve(handle, "curl_multi_strerror", library.multi_strerror, missing);
  Resolve(handle, "curl_slist_append", library.slist_append, missing);
  Resolve(handle, "curl_slist_free_all", library.slist_free_all, missing);
  Resolve(handle, "curl_url", library.url, missing);
  Resolve(handle, "curl_url_set", library.url_set, missing);
  Resolve(handle, "curl_url_get", library.url_get, missing);
  Resolve(handle, "curl_url_cleanup", library.url_cleanup, missing);
  Resolve(handle, "curl_free", library.free, missing);
  if (!missing.empty())
    return MakeError(kCurlSoname, "libcurl lacks " + missing + " (too old for imagelint)");
  if (library.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return MakeError(kCurlSoname, "curl_global_init failed");
  return &library;  // the handle stays open for the life of the process
}

}  // namespace

Result<const CurlLibrary*> LoadCurl() {
  static std::once_flag once;
  static Result<const CurlLibrary*> loaded = MakeError(kCurlSoname, "not loaded");
  std::call_once(once, [] { loaded = Load(); });
  return loaded;
}

}  // namespace imagelint::registry
