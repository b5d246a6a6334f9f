# Every dependency comes from a Debian package (scripts/setup.sh installs them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(LibArchive REQUIRED)          # libarchive-dev
find_package(nlohmann_json 3.10 REQUIRED)  # nlohmann-json3-dev
find_package(yaml-cpp REQUIRED)            # libyaml-cpp-dev
find_package(CLI11 REQUIRED)               # libcli11-dev
find_package(doctest REQUIRED)             # doctest-dev
find_package(CURL REQUIRED)                # libcurl4-openssl-dev
find_package(OpenSSL REQUIRED COMPONENTS Crypto SSL)  # libssl-dev (libssl: rediss:// of the shared cache)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)  # libzstd-dev
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)    # liblz4-dev
pkg_check_modules(ISAL REQUIRED IMPORTED_TARGET libisal)  # libisal-dev (igzip inflate)
# `scan --all-tags --tags REGEX`: the user's pattern over tags a registry lists,
# matched in linear time (RE2), never with std::regex's backtracking.
pkg_check_modules(RE2 IMPORTED_TARGET re2)
if(NOT RE2_FOUND)
  message(FATAL_ERROR "re2 not found: install Debian's libre2-dev (scripts/setup.sh does), "
                      "the matcher of `imagelint scan --all-tags --tags REGEX`")
endif()

# yaml-cpp's Debian config names its target differently across versions.
if(TARGET yaml-cpp::yaml-cpp)
  set(IMAGELINT_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(IMAGELINT_YAML_TARGET yaml-cpp)
endif()
