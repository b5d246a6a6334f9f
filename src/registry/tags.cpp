// The tag list of a repository: GET /v2/<name>/tags/list?n=N, then each
// rel="next" page of the Link header (RFC 5988), as the distribution spec
// describes ("Listing Tags",
// https://github.com/opencontainers/distribution-spec/blob/main/spec.md#listing-tags).
#include <set>

#include "common/json.h"
#include "imagelint/registry.h"
#include "registry/client.h"

namespace imagelint::registry {
namespace {

constexpr size_t kPageSize = 1000;
constexpr size_t kMaxPages = 10000;
constexpr size_t kMaxTags = 100000;
constexpr uint64_t kMaxPageBytes = 4u << 20;

// [A-Za-z0-9_][A-Za-z0-9._-]{0,127}, the distribution spec's tag grammar.
bool ValidTag(const std::string& tag) {
  if (tag.empty() || tag.size() > 128) return false;
  for (size_t i = 0; i < tag.size(); ++i) {
    char c = tag[i];
    bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!word && (i == 0 || (c != '.' && c != '-'))) return false;
  }
  return true;
}

// The next page's path below /v2/<repository>/ from a Link header
// (`</v2/app/tags/list?n=1000&last=v9>; rel="next"`, possibly absolute);
// "" when there is no next page.
Result<std::string> NextPage(const std::string& link, const std::string& repository) {
  if (link.empty()) return std::string();
  size_t open = link.find('<');
  size_t close = link.find('>', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return MakeError("Link", "not <URL>; rel=\"next\"");
  std::string params = link.substr(close + 1);
  if (params.find("rel=\"next\"") == std::string::npos && params.find("rel=next") == std::string::npos)
    return std::string();
  std::string target = link.substr(open + 1, close - open - 1);
  if (size_t scheme = target.find("://"); scheme != std::string::npos) {
    size_t path = target.find('/', scheme + 3);
    target = path == std::string::npos ? "/" : target.substr(path);  // the client stays on its own registry
  }
  const std::string prefix = "/v2/" + repository + "/";
  if (target.rfind(prefix, 0) != 0 || target.find("..") != std::string::npos)
    return MakeError("Link", "next page '" + target + "' is not below " + prefix);
  return target.substr(prefix.size());
}

}  // namespace

Result<std::vector<std::string>> ListTags(const Reference& repository, const RegistryOptions& options) {
  Reference ref = repository;
  ref.digest.clear();
  const std::string name = ref.registry + "/" + ref.repository;
  Client client(ref, options);
  std::vector<std::string> tags;
  std::set<std::string> seen_pages;
  std::string suffix = "tags/list?n=" + std::to_string(kPageSize);
  for (size_t page = 0; !suffix.empty(); ++page) {
    if (page >= kMaxPages || !seen_pages.insert(suffix).second)
      return MakeError(name, "the tag list does not end (page " + std::to_string(page + 1) + ")");
    auto document = client.GetDocument(suffix, {"Accept: application/json"}, kMaxPageBytes, "tag list");
    if (!document.ok()) return document.error();
    auto parsed = ParseJson(std::string(document->bytes.begin(), document->bytes.end()), name + " tag list");
    if (!parsed.ok()) return parsed.error();
    if (!parsed->is_object() || !parsed->contains("tags")) return MakeError(name, "the tag list has no \"tags\"");
    const auto& list = (*parsed)["tags"];
    if (!list.is_null() && !list.is_array()) return MakeError(name, "the tag list's \"tags\" is not a list");
    for (const auto& tag : list.is_array() ? list : nlohmann::json::array()) {
      if (!tag.is_string() || !ValidTag(tag.get<std::string>()))
        return MakeError(name, "the tag list holds an invalid tag: " + tag.dump().substr(0, 140));
      if (tags.size() >= kMaxTags) return MakeError(name, "more than 100000 tags");
      tags.push_back(tag.get<std::string>());
    }
    auto next = NextPage(document->link, ref.repository);
    if (!next.ok()) return MakeError(name, next.error().ToString());
    suffix = *next;
  }
  return tags;
}

}  // namespace imagelint::registry
