// The checkout's knowledge tables (rules/knowledge), loaded once per test
// process. Header-only: tests that use it link imagelint_knowledge already.
#pragma once

#include <doctest/doctest.h>

#include "imagelint/knowledge.h"
#include "support/test_support.h"

namespace imagelint::testing {

inline const Knowledge& CheckoutKnowledge() {
  static const Knowledge knowledge = [] {
    auto loaded = Knowledge::LoadDefault(SourceDir());
    REQUIRE_MESSAGE(loaded.ok(), imagelint::testing::ErrorText(loaded));
    return std::move(*loaded);
  }();
  return knowledge;
}

}  // namespace imagelint::testing
