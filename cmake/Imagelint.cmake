# imagelint_add_module(NAME SOURCES a.cpp b.cpp DEPS other_target ...)
#   Declares the static library imagelint_<NAME> from src/<NAME>/.
#   Public headers live in include/imagelint/; private ones beside the sources.
function(imagelint_add_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(imagelint_${name} STATIC ${ARG_SOURCES})
  target_include_directories(imagelint_${name}
    PUBLIC "${PROJECT_SOURCE_DIR}/include"
    PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/src")
  target_link_libraries(imagelint_${name} PUBLIC nlohmann_json::nlohmann_json ${ARG_DEPS})
  # No data directory is compiled into the library: the caller passes it in
  # (imagelint::Context; the command line decides it in src/cli/environment.cpp).
  target_compile_definitions(imagelint_${name} PRIVATE IMAGELINT_VERSION="${PROJECT_VERSION}")
  set_property(GLOBAL APPEND PROPERTY IMAGELINT_MODULES imagelint_${name})
endfunction()

# imagelint_add_test(NAME SOURCES a_test.cpp ... DEPS imagelint_x ... [LABELS l1 l2])
#   A doctest executable test_<NAME>, registered with CTest under the same name.
#   Tests get IMAGELINT_SOURCE_DIR (the checkout; nothing outside it) and the
#   imagelint binary path. A test executable that skipped checks for a missing
#   external tool exits 77 (tests/support/test_support.h kSkipExitCode), which
#   ctest lists as skipped; in CI such a check fails instead.
function(imagelint_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(test_${name} ${ARG_SOURCES})
  target_link_libraries(test_${name} PRIVATE imagelint_test_support doctest::doctest ${ARG_DEPS})
  target_include_directories(test_${name} PRIVATE "${PROJECT_SOURCE_DIR}/src" "${PROJECT_SOURCE_DIR}/tests")
  add_test(NAME ${name} COMMAND test_${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  # Suites named in IMAGELINT_SANITIZER_SUITES (tests/CMakeLists.txt) also
  # run in the sanitizer build: label `sanitize`, built by `sanitizer_suite`.
  if(name IN_LIST IMAGELINT_SANITIZER_SUITES)
    list(APPEND ARG_LABELS sanitize)
    add_dependencies(sanitizer_suite test_${name})
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS "${ARG_LABELS}" SKIP_RETURN_CODE 77)
endfunction()
