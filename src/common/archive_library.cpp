#include "common/archive_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace imagelint {
namespace {

ArchiveLibrary library;

template <class Function>
void Resolve(void* handle, const char* name, Function& slot, std::string& missing) {
  slot = reinterpret_cast<Function>(dlsym(handle, name));
  if (slot == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(name);
}

Result<const ArchiveLibrary*> Load() {
  // RTLD_LOCAL: its symbols serve this table only; RTLD_NOW: a library too
  // old for one of the functions fails here, not in the middle of a layer.
  void* handle = dlopen(kArchiveSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return MakeError(kArchiveSoname, std::string("cannot load libarchive (install the libarchive13 package): ") +
                                         (why ? why : "dlopen failed"));
  }
  std::string missing;
  Resolve(handle, "archive_entry_filetype", library.archive_entry_filetype, missing);
  Resolve(handle, "archive_entry_hardlink", library.archive_entry_hardlink, missing);
  Resolve(handle, "archive_entry_new", library.archive_entry_new, missing);
  Resolve(handle, "archive_entry_pathname", library.archive_entry_pathname, missing);
  Resolve(handle, "archive_entry_pathname_utf8", library.archive_entry_pathname_utf8, missing);
  Resolve(handle, "archive_entry_perm", library.archive_entry_perm, missing);
  Resolve(handle, "archive_entry_set_filetype", library.archive_entry_set_filetype, missing);
  Resolve(handle, "archive_entry_set_gid", library.archive_entry_set_gid, missing);
  Resolve(handle, "archive_entry_set_mtime", library.archive_entry_set_mtime, missing);
  Resolve(handle, "archive_entry_set_pathname", library.archive_entry_set_pathname, missing);
  Resolve(handle, "archive_entry_set_perm", library.archive_entry_set_perm, missing);
  Resolve(handle, "archive_entry_set_size", library.archive_entry_set_size, missing);
  Resolve(handle, "archive_entry_set_uid", library.archive_entry_set_uid, missing);
  Resolve(handle, "archive_entry_size", library.archive_entry_size, missing);
  Resolve(handle, "archive_entry_size_is_set", library.archive_entry_size_is_set, missing);
  Resolve(handle, "archive_entry_symlink", library.archive_entry_symlink, missing);
  Resolve(handle, "archive_entry_symlink_utf8", library.archive_entry_symlink_utf8, missing);
  Resolve(handle, "archive_error_string", library.archive_error_string, missing);
  Resolve(handle, "archive_read_data", library.archive_read_data, missing);
  Resolve(handle, "archive_read_data_block", library.archive_read_data_block, missing);
  Resolve(handle, "archive_read_free", library.archive_read_free, missing);
  Resolve(handle, "archive_read_header_position", library.archive_read_header_position, missing);
  Resolve(handle, "archive_read_new", library.archive_read_new, missing);
  Resolve(handle, "archive_read_next_header", library.archive_read_next_header, missing);
  Resolve(handle, "archive_read_open", library.archive_read_open, missing);
  Resolve(handle, "archive_read_open_memory", library.archive_read_open_memory, missing);
  Resolve(handle, "archive_read_support_format_gnutar", library.archive_read_support_format_gnutar, missing);
  Resolve(handle, "archive_read_support_format_tar", library.archive_read_support_format_tar, missing);
  Resolve(handle, "archive_set_error", library.archive_set_error, missing);
  Resolve(handle, "archive_write_close", library.archive_write_close, missing);
  Resolve(handle, "archive_write_data", library.archive_write_data, missing);
  Resolve(handle, "archive_write_free", library.archive_write_free, missing);
  Resolve(handle, "archive_write_header", library.archive_write_header, missing);
  Resolve(handle, "archive_write_new", library.archive_write_new, missing);
  Resolve(handle, "archive_write_open", library.archive_write_open, missing);
  Resolve(handle, "archive_write_set_format_ustar", library.archive_write_set_format_ustar, missing);
  Resolve(handle, "archive_entry_free", library.archive_entry_free, missing);
  if (!missing.empty()) return MakeError(kArchiveSoname, "libarchive lacks " + missing + " (too old for imagelint)");
  return &library;  // the handle stays open for the life of the process
}

std::once_flag once;
Result<const ArchiveLibrary*> loaded = MakeError(kArchiveSoname, "not loaded");

}  // namespace

Result<const ArchiveLibrary*> LoadArchive() {
  std::call_once(once, [] { loaded = Load(); });
  return loaded;
}

const ArchiveLibrary& Archive() {
  // Callers load it first; a call without that is a programming error, not input.
  if (!LoadArchive().ok()) std::abort();
  return library;
}

}  // namespace imagelint
