#include "common/shared_library.h"

#include <dlfcn.h>

namespace imagelint {

Result<SymbolTable> SymbolTable::Open(const char* soname, std::string_view library, std::string_view package) {
  void* handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return MakeError(soname, "cannot load " + std::string(library) + " (install the " + std::string(package) +
                                 " package): " + (why ? why : "dlopen failed"));
  }
  return SymbolTable(handle, soname, library);
}

void* SymbolTable::Lookup(const char* name) const { return dlsym(handle_, name); }

Status SymbolTable::Complete() const {
  if (!missing_.empty()) return MakeError(soname_, library_ + " lacks " + missing_ + " (too old for imagelint)");
  return OkStatus();
}

}  // namespace imagelint
