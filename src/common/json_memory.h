// What a JSON value held in memory costs, estimated the way ParseJson's
// bounded builder charges it while parsing (a node's header, an object's
// key, a string's bytes). Budgets use it for values imagelint builds itself
// from an image's files, which no parser bounded: the facts kept per file.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace imagelint {

// Bytes `value` holds, all nested values included. Iterative: a value of
// any depth is measured without recursion.
uint64_t EstimateJsonMemory(const nlohmann::json& value);

}  // namespace imagelint
