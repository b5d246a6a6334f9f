# What `cmake --install` and `cmake --build BUILD --target package` ship.
#
# Two components, two Debian packages:
#   runtime      bin/imagelint, share/imagelint/{rules,docs}, completions, the
#                man page (src/cli/CMakeLists.txt)            -> imagelint
#   development  include/imagelint/*.h, lib/libimagelint.a (every module in
#                one archive), lib/cmake/imagelint/           -> libimagelint-dev
# so that an embedding program writes
#   find_package(imagelint REQUIRED)
#   target_link_libraries(app PRIVATE imagelint::imagelint)
# (examples/library/CMakeLists.txt; docs/library.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# libimagelint.a: every module in one archive (cmake/archive/).
add_subdirectory("${PROJECT_SOURCE_DIR}/cmake/archive" "${PROJECT_BINARY_DIR}/archive")

install(TARGETS imagelint_archive EXPORT imagelintTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/imagelint" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
        COMPONENT development)
set(imagelint_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/imagelint")
install(EXPORT imagelintTargets NAMESPACE imagelint:: DESTINATION "${imagelint_cmake_dir}"
        COMPONENT development)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/imagelintConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/imagelintConfig.cmake" INSTALL_DESTINATION "${imagelint_cmake_dir}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/imagelintConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/imagelintConfig.cmake" "${PROJECT_BINARY_DIR}/imagelintConfigVersion.cmake"
        DESTINATION "${imagelint_cmake_dir}" COMPONENT development)

# The Debian packages. The runtime package's Depends come from the binary
# itself (dpkg-shlibdeps over every ELF file in it, the way debhelper's
# ${shlibs:Depends} does), so they follow whatever the build linked against.
# The development package holds a static archive: what it needs to link is
# the -dev packages of the libraries the modules use (Dependencies.cmake),
# which no tool can read off an archive, so they are listed here.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME imagelint)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "imagelint contributors")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "predicts the CUDA errors a container image will meet on each pool of GPU hosts")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime development)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "imagelint contributors <imagelint@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME imagelint)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
# Loaded with dlopen when imagelint first speaks HTTP (src/registry/curl_library.h)
# or reads a tar (src/common/archive_library.h), so dpkg-shlibdeps cannot see
# them: the packages that hold libcurl.so.4 and libarchive.so.13.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "libcurl4, libarchive13")
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_NAME libimagelint-dev)
set(CPACK_DEBIAN_DEVELOPMENT_PACKAGE_DEPENDS
    "imagelint (= ${PROJECT_VERSION}), libarchive-dev, nlohmann-json3-dev, libyaml-cpp-dev, libcurl4-openssl-dev | libcurl-dev, libssl-dev, libzstd-dev, liblz4-dev, libisal-dev, libre2-dev, pkg-config")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "imagelint command line\n reads CUDA container images statically and predicts, per pool of GPU hosts, the CUDA error each will meet, with the fix.")
set(CPACK_COMPONENT_DEVELOPMENT_DESCRIPTION
    "imagelint library (headers, static archive, CMake package)\n find_package(imagelint) and link imagelint::imagelint to scan images from a program.")
include(CPack)
