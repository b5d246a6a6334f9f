// Rule files: loading, positions of errors, overrides, the rule table.
#include <doctest/doctest.h>

#include "imagelint/rules.h"
#include "support/test_support.h"

using namespace imagelint::rules;
