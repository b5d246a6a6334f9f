// AddCudaFacts over the merged tree. Kept in its own object file: only code
// that has an ImageTree (and so links imagelint_merge) pulls it in.
#include "cuda/cuda.h"
#include "imagelint/source.h"
#include "imagelint/tree.h"

namespace imagelint::cuda {

void AddCudaFacts(const ImageTree& tree, const ImageMetadata& metadata, const Knowledge& knowledge,
                  facts::Facts& facts) {
  CudaFactsInput input;
  input.config = metadata.config;
  for (const LayerRef& layer : metadata.layers) input.layer_digests.push_back(layer.digest);
  tree.ForEach([&](const std::string& path, const TreeNode& node) {
    if (node.entry == nullptr) return;
    CudaFile file;
    file.path = path;
    file.type = node.entry->info.type;
    file.link_target = node.entry->info.link_target;
    file.layer = node.layer;
    const LayerEntry* content = node.content != nullptr ? node.content : node.entry;
    file.size = content->info.size;
    auto elf = content->analysis.find(std::string(kElfAnalyzerName));
    if (elf != content->analysis.end() && !elf->second.is_null()) file.elf = &elf->second;
    auto text = content->analysis.find(std::string(kTextAnalyzerName));
    if (text != content->analysis.end() && !text->second.is_null()) file.text = &text->second;
    input.files.push_back(std::move(file));
  });
  input.resolve = [&tree](std::string_view path) -> std::optional<std::string> {
    auto resolved = tree.Resolve(path);
    if (!resolved.ok()) return std::nullopt;
    std::string value = resolved.value();
    while (!value.empty() && value.front() == '/') value.erase(0, 1);
    return value;
  };
  AddCudaFacts(input, knowledge, facts);
}

}  // namespace imagelint::cuda
