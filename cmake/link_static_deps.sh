#!/bin/sh
# Link launcher of the imagelint executable (RULE_LAUNCH_LINK, when
# IMAGELINT_STATIC_DEPENDENCIES is on): runs the link command it is given with
# the shared libraries named below replaced by their static archives from the
# same Debian -dev package, and libstdc++/libgcc linked statically.
#
# Why: every run of the command line paid the dynamic loader's relocations of
# these libraries (libcrypto's and libstdc++'s symbols above all) before main,
# about a fifth of a single-Dockerfile check. The archives are part of the
# -dev packages the build needs anyway. libcurl and libarchive stay shared and
# are opened on first use (curl_library.h, archive_library.h); libisal ships
# no archive. Only the executable: the library (libimagelint.a) and the tests
# link as CMake found the dependencies.
set -eu
static_names="libcrypto libssl libyaml-cpp libre2 libzstd liblz4"
first=1
for arg in "$@"; do
  if [ "$first" = 1 ]; then set --; first=0; fi
  case "$arg" in
    *.so|*.so.*)
      dir=$(dirname "$arg")
      base=$(basename "$arg")
      name=${base%%.so*}
      for wanted in $static_names; do
        if [ "$name" = "$wanted" ] && [ -f "$dir/$name.a" ]; then arg="$dir/$name.a"; break; fi
      done
      ;;
  esac
  set -- "$@" "$arg"
done
exec "$@" -static-libstdc++ -static-libgcc
