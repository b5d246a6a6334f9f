#include "registry/curl_library.h"

#include "common/shared_library.h"

#include <mutex>
#include <string>

namespace imagelint::registry {
namespace {

Result<const CurlLibrary*> Load() {
  auto table = SymbolTable::Open(kCurlSoname, "libcurl", "libcurl4");
  if (!table.ok()) return table.error();
  static CurlLibrary library;
  table->Resolve("curl_global_init", library.global_init);
  table->Resolve("curl_easy_init", library.easy_init);
  table->Resolve("curl_easy_setopt", library.easy_setopt);
  table->Resolve("curl_easy_getinfo", library.easy_getinfo);
  table->Resolve("curl_easy_cleanup", library.easy_cleanup);
  table->Resolve("curl_easy_strerror", library.easy_strerror);
  table->Resolve("curl_multi_init", library.multi_init);
  table->Resolve("curl_multi_add_handle", library.multi_add_handle);
  table->Resolve("curl_multi_remove_handle", library.multi_remove_handle);
  table->Resolve("curl_multi_perform", library.multi_perform);
  table->Resolve("curl_multi_poll", library.multi_poll);
  table->Resolve("curl_multi_info_read", library.multi_info_read);
  table->Resolve("curl_multi_cleanup", library.multi_cleanup);
  table->Resolve("curl_multi_strerror", library.multi_strerror);
  table->Resolve("curl_slist_append", library.slist_append);
  table->Resolve("curl_slist_free_all", library.slist_free_all);
  table->Resolve("curl_url", library.url);
  table->Resolve("curl_url_set", library.url_set);
  table->Resolve("curl_url_get", library.url_get);
  table->Resolve("curl_url_cleanup", library.url_cleanup);
  table->Resolve("curl_free", library.free);
  IMAGELINT_TRY(table->Complete());
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
