#include <doctest/doctest.h>
#include "imagelint/dockerfile.h"
TEST_CASE("placeholder3") { CHECK(true); }
