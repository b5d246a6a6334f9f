// Shared by the three importers: one host's GPU description before grouping,
// and the grouping into pools.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/text.h"
#include "imagelint/fleet_import.h"

namespace imagelint::fleet_import {

struct HostGpus {
  std::string host;
  std::string product;       // as the input spells it (GFD label value, nvidia-smi name)
  std::string lookup_name;   // product without MIG / sharing suffixes
  bool product_sanitised = false;  // product is a GFD label value (spaces became '-')
  std::optional<std::string> mig_profile;
  std::optional<std::string> sharing;
  std::string driver;
  std::optional<std::string> cuda_version;
  std::optional<std::string> compute_capability;  // from the input
  std::optional<std::string> brand;               // from the input, normalised
  std::optional<std::string> input_brand_raw;     // as printed, for notes
  int gpu_count = 0;
  Platform platform;  // normalised; linux/amd64 when the input names none
  std::optional<std::string> runtime;
  std::map<std::string, std::string> selector_labels;
  std::vector<std::string> notes;  // pool-level notes (identical notes merge)
};

// Groups hosts with identical driver, product, GPU count, compute capability,
// platform, input brand and selector labels; resolves products through
// `gpus`; names pools uniquely.
std::vector<ImportedPool> GroupHosts(const std::vector<HostGpus>& hosts, const std::string& source,
                                     const GpuResolver& gpus, std::vector<std::string>* warnings);

// "550.54.15" / "550.54": 2 or 3 dot-separated decimal parts.
bool IsDriverVersion(std::string_view text);
// "8.6", "12.0", "10.3".
bool IsComputeCapability(std::string_view text);
// NVML brand as nvidia-smi / nvidia-container-cli print it → lowercase
// requirement-string spelling ("NVIDIA RTX" → "nvidiartx"); "" stays "", a
// brand `brands` does not know is "unknown".
std::string NormaliseBrand(std::string_view printed, const std::vector<BrandNames>& brands);
// Brand guessed from a product name by the brands' product words
// ("GeForce" → geforce ...); nullopt when the name gives no hint.
std::optional<std::string> GuessBrandFromName(std::string_view product, const std::vector<BrandNames>& brands);

}  // namespace imagelint::fleet_import
