// A shared library opened when first needed (dlopen), with its functions
// looked up by name into a table of pointers: runs that never use it never
// map it (and what it pulls in) at start-up. libarchive (archive_library.h)
// and libcurl (registry/curl_library.h) are loaded this way.
//
//   auto table = SymbolTable::Open(kArchiveSoname, "libarchive", "libarchive13");
//   table->Resolve("archive_read_new", library.archive_read_new);
//   IMAGELINT_TRY(table->Complete());
#pragma once

#include <string>
#include <string_view>

#include "imagelint/result.h"

namespace imagelint {

class SymbolTable {
 public:
  // dlopen(soname) with RTLD_NOW (a library too old for one of the functions
  // fails here, not in the middle of the work) and RTLD_LOCAL (its symbols
  // serve this table only). The handle stays open for the life of the
  // process. The error names the library and the package that provides it.
  static Result<SymbolTable> Open(const char* soname, std::string_view library, std::string_view package);

  // `slot` = the function `name`; null, and remembered as missing, when the
  // library lacks it.
  template <class Function>
  void Resolve(const char* name, Function& slot) {
    slot = reinterpret_cast<Function>(Lookup(name));
    if (slot == nullptr) missing_ += (missing_.empty() ? "" : ", ") + std::string(name);
  }

  // An error naming every function Resolve did not find.
  Status Complete() const;

 private:
  SymbolTable(void* handle, const char* soname, std::string_view library)
      : handle_(handle), soname_(soname), library_(library) {}
  void* Lookup(const char* name) const;

  void* handle_;
  std::string soname_, library_, missing_;
};

}  // namespace imagelint
