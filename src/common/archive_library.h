// libarchive, loaded the first time imagelint reads or writes a tar (an image
// layer, a knowledge bundle), not when the program starts. Linked at start-up,
// libarchive and what it pulls in (libxml2, ICU, ACL, nettle, lzma, bz2) cost
// about 3 ms of every run, Dockerfile checks and --version included, which read
// no tar (docs/PERFORMANCE.md "Start-up").
//
//   auto loaded = LoadArchive();            // once, before the first call
//   if (!loaded.ok()) return loaded.error();
//   archive* a = Archive().archive_read_new();
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include "imagelint/result.h"

namespace imagelint {

// The libarchive functions imagelint calls, named and typed as <archive.h>
// declares them.
struct ArchiveLibrary {
  decltype(&::archive_entry_filetype) archive_entry_filetype = nullptr;
  decltype(&::archive_entry_hardlink) archive_entry_hardlink = nullptr;
  decltype(&::archive_entry_new) archive_entry_new = nullptr;
  decltype(&::archive_entry_pathname) archive_entry_pathname = nullptr;
  decltype(&::archive_entry_pathname_utf8) archive_entry_pathname_utf8 = nullptr;
  decltype(&::archive_entry_perm) archive_entry_perm = nullptr;
  decltype(&::archive_entry_set_filetype) archive_entry_set_filetype = nullptr;
  decltype(&::archive_entry_set_gid) archive_entry_set_gid = nullptr;
  decltype(&::archive_entry_set_mtime) archive_entry_set_mtime = nullptr;
  decltype(&::archive_entry_set_pathname) archive_entry_set_pathname = nullptr;
  decltype(&::archive_entry_set_perm) archive_entry_set_perm = nullptr;
  decltype(&::archive_entry_set_size) archive_entry_set_size = nullptr;
  decltype(&::archive_entry_set_uid) archive_entry_set_uid = nullptr;
  decltype(&::archive_entry_size) archive_entry_size = nullptr;
  decltype(&::archive_entry_size_is_set) archive_entry_size_is_set = nullptr;
  decltype(&::archive_entry_symlink) archive_entry_symlink = nullptr;
  decltype(&::archive_entry_symlink_utf8) archive_entry_symlink_utf8 = nullptr;
  decltype(&::archive_error_string) archive_error_string = nullptr;
  decltype(&::archive_read_data) archive_read_data = nullptr;
  decltype(&::archive_read_data_block) archive_read_data_block = nullptr;
  decltype(&::archive_read_free) archive_read_free = nullptr;
  decltype(&::archive_read_header_position) archive_read_header_position = nullptr;
  decltype(&::archive_read_new) archive_read_new = nullptr;
  decltype(&::archive_read_next_header) archive_read_next_header = nullptr;
  decltype(&::archive_read_open) archive_read_open = nullptr;
  decltype(&::archive_read_open_memory) archive_read_open_memory = nullptr;
  decltype(&::archive_read_support_format_gnutar) archive_read_support_format_gnutar = nullptr;
  decltype(&::archive_read_support_format_tar) archive_read_support_format_tar = nullptr;
  decltype(&::archive_set_error) archive_set_error = nullptr;
  decltype(&::archive_write_close) archive_write_close = nullptr;
  decltype(&::archive_write_data) archive_write_data = nullptr;
  decltype(&::archive_write_free) archive_write_free = nullptr;
  decltype(&::archive_write_header) archive_write_header = nullptr;
  decltype(&::archive_write_new) archive_write_new = nullptr;
  decltype(&::archive_write_open) archive_write_open = nullptr;
  decltype(&::archive_write_set_format_ustar) archive_write_set_format_ustar = nullptr;
  decltype(&::archive_entry_free) archive_entry_free = nullptr;
};

// The SONAME loaded: the one Debian's libarchive13 package provides, and the
// one a link against libarchive-dev records.
inline constexpr const char* kArchiveSoname = "libarchive.so.13";

// libarchive, loaded once per process; an error naming the library and what is
// missing when it cannot be loaded.
Result<const ArchiveLibrary*> LoadArchive();

// The loaded table. Only after LoadArchive() succeeded.
const ArchiveLibrary& Archive();

}  // namespace imagelint
