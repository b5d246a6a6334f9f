// BaseKind's one name table (include/imagelint/facts.h); the knowledge
// table base-images.yaml spells its `family` values the same way.
#include "common/enum_names.h"
#include "imagelint/facts.h"

namespace imagelint::facts {
namespace {

constexpr std::array<std::pair<BaseKind, std::string_view>, 8> kBaseKindNames{{
    {BaseKind::kNvidiaCuda, "nvidia/cuda"},
    {BaseKind::kPytorch, "pytorch/pytorch"},
    {BaseKind::kNgc, "ngc"},
    {BaseKind::kL4t, "l4t"},
    {BaseKind::kCudaApplication, "cuda-application"},
    {BaseKind::kNoCuda, "no-cuda"},
    {BaseKind::kScratch, "scratch"},
    {BaseKind::kUnknown, "unknown"},
}};

}  // namespace

std::string_view BaseKindName(BaseKind kind) { return NameIn(kBaseKindNames, kind); }
std::optional<BaseKind> ParseBaseKind(std::string_view text) { return ValueIn(kBaseKindNames, text); }

}  // namespace imagelint::facts
