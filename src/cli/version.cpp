#include "cli/version.h"

#include <algorithm>
#include <fstream>
#include <vector>

#include "build_info.h"
#include "common/text.h"
#include "imagelint/config.h"
#include "imagelint/knowledge_bundle.h"

namespace imagelint::cli {

namespace fs = std::filesystem;

namespace {

// "sha256:<hex>" -> "<hex>".
std::string Hex(const std::string& digest) { return digest.substr(digest.find(':') + 1); }

}  // namespace

std::string VersionText(const Environment& environment) {
  Context context = environment.MakeContext();
  std::string text = std::string("imagelint ") + IMAGELINT_VERSION + "\n";
  text += std::string("commit    ") + IMAGELINT_GIT_COMMIT + "\n";
  auto bundle = ReadKnowledgeBundleHeader(context.knowledge_dir);
  auto digest = KnowledgeDigest(context.knowledge_dir, context.cache_dir);
  if (!bundle.ok() || !digest.ok()) {
    text += "knowledge unreadable: " + (bundle.ok() ? digest.error() : bundle.error()).ToString() + "\n";
  } else {
    const std::string today = context.today.empty() ? Today() : context.today;
    auto age = KnowledgeAgeDays(bundle->as_of, today);
    text += "knowledge " + bundle->revision + ", as of " + bundle->as_of +
            (age ? " (" + std::to_string(*age) + (*age == 1 ? " day" : " days") + " old)" : "") + ", schema " +
            std::to_string(bundle->schema_version) + ", " + *digest + "\n";
    // The tables this binary was built with, when the ones in use differ.
    const std::string revision = Hex(*digest).substr(0, 12);
    text += "          (" + context.knowledge_dir.string() +
            (revision == IMAGELINT_KNOWLEDGE_REVISION ? "" : std::string("; built with ") + IMAGELINT_KNOWLEDGE_REVISION) +
            ")\n";
  }
  text += "rules     " + context.rules_dir.string() + "\n";
  text += "docs      " + context.docs_dir.string();
  return text;
}

}  // namespace imagelint::cli
