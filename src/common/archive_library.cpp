#include "common/archive_library.h"

#include "common/shared_library.h"

#include <cstdlib>
#include <mutex>
#include <string>

namespace imagelint {
namespace {

ArchiveLibrary library;

Result<const ArchiveLibrary*> Load() {
  auto table = SymbolTable::Open(kArchiveSoname, "libarchive", "libarchive13");
  if (!table.ok()) return table.error();
  table->Resolve("archive_entry_filetype", library.archive_entry_filetype);
  table->Resolve("archive_entry_hardlink", library.archive_entry_hardlink);
  table->Resolve("archive_entry_new", library.archive_entry_new);
  table->Resolve("archive_entry_pathname", library.archive_entry_pathname);
  table->Resolve("archive_entry_pathname_utf8", library.archive_entry_pathname_utf8);
  table->Resolve("archive_entry_perm", library.archive_entry_perm);
  table->Resolve("archive_entry_set_filetype", library.archive_entry_set_filetype);
  table->Resolve("archive_entry_set_gid", library.archive_entry_set_gid);
  table->Resolve("archive_entry_set_mtime", library.archive_entry_set_mtime);
  table->Resolve("archive_entry_set_pathname", library.archive_entry_set_pathname);
  table->Resolve("archive_entry_set_perm", library.archive_entry_set_perm);
  table->Resolve("archive_entry_set_size", library.archive_entry_set_size);
  table->Resolve("archive_entry_set_uid", library.archive_entry_set_uid);
  table->Resolve("archive_entry_size", library.archive_entry_size);
  table->Resolve("archive_entry_size_is_set", library.archive_entry_size_is_set);
  table->Resolve("archive_entry_symlink", library.archive_entry_symlink);
  table->Resolve("archive_entry_symlink_utf8", library.archive_entry_symlink_utf8);
  table->Resolve("archive_error_string", library.archive_error_string);
  table->Resolve("archive_read_data", library.archive_read_data);
  table->Resolve("archive_read_data_block", library.archive_read_data_block);
  table->Resolve("archive_read_free", library.archive_read_free);
  table->Resolve("archive_read_header_position", library.archive_read_header_position);
  table->Resolve("archive_read_new", library.archive_read_new);
  table->Resolve("archive_read_next_header", library.archive_read_next_header);
  table->Resolve("archive_read_open", library.archive_read_open);
  table->Resolve("archive_read_open_memory", library.archive_read_open_memory);
  table->Resolve("archive_read_support_format_gnutar", library.archive_read_support_format_gnutar);
  table->Resolve("archive_read_support_format_tar", library.archive_read_support_format_tar);
  table->Resolve("archive_set_error", library.archive_set_error);
  table->Resolve("archive_write_close", library.archive_write_close);
  table->Resolve("archive_write_data", library.archive_write_data);
  table->Resolve("archive_write_free", library.archive_write_free);
  table->Resolve("archive_write_header", library.archive_write_header);
  table->Resolve("archive_write_new", library.archive_write_new);
  table->Resolve("archive_write_open", library.archive_write_open);
  table->Resolve("archive_write_set_format_ustar", library.archive_write_set_format_ustar);
  table->Resolve("archive_entry_free", library.archive_entry_free);
  IMAGELINT_TRY(table->Complete());
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
