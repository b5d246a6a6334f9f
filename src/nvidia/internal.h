// Helpers shared by the files of src/nvidia/ (not public).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "imagelint/knowledge.h"

namespace imagelint::nvidia::internal {

// The image env (facts.image.env) as a map.
std::map<std::string, std::string> ImageEnv(const nlohmann::json& facts);
// The CUDA version a driver supports natively (its branch, or the nearest
// known branch below it).
std::optional<std::string> DriverCudaVersion(std::string_view driver, const Knowledge& knowledge);

}  // namespace imagelint::nvidia::internal
