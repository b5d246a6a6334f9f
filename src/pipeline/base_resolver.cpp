// Base images read from where they are. Order: a --base-image REF=PATH
// archive or layout ("local"), then for --base-from auto the Docker engine and
// the registry, each asked only while the scan's time budget lasts (every
// connection and wait is bounded by what is left of it, one attempt each), so
// an offline machine, a registry that never answers, or one that wants
// credentials costs at most the budget for the whole scan. A reference is
// looked up once per scan; its note (why it was not read) is given once.
#include "pipeline/base_resolver.h"

#include <algorithm>
#include <mutex>

#include "imagelint/read_image.h"
#include "imagelint/registry.h"
#include "pipeline/read.h"

namespace imagelint::pipeline {
namespace {

// An image read: its facts for the Dockerfile model.
Result<dockerfile::ResolvedBase> ScanBase(ImageSource& source, BaseSource from, ReadImageOptions& read,
                                          const Knowledge& knowledge) {
  auto analyzers = DefaultAnalyzers(knowledge);
  auto image = ScanImage(source, AnalyzerPointers(analyzers), read.scan);
  if (!image.ok()) return image.error();
  dockerfile::ResolvedBase out;
  out.resolved_from = from;
  out.digest = source.Metadata().digest;
  out.platform = source.Metadata().platform.ToString();
  out.facts = BuildFactsModel(*image, knowledge);
  return out;
}

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : "; ") + item;
  return out;
}

}  // namespace

Result<std::unique_ptr<ImageBaseResolver>> ImageBaseResolver::Create(const ImageReadOptions& options,
                                                                     const Context& context,
                                                                     const Knowledge& knowledge) {
  std::string mode = options.base.from.empty() ? context.base_from : options.base.from;
  if (mode.empty()) mode = "auto";
  std::vector<std::string> sources;
  if (mode == "auto") {
    sources = {"docker", "registry"};
  } else if (mode == "docker" || mode == "registry") {
    sources = {mode};
  } else if (mode != "knowledge") {
    return MakeError("--base-from", "\"" + mode.substr(0, 100) + "\": expected auto, registry, docker or knowledge");
  }
  if (!(options.base.timeout_seconds > 0) || options.base.timeout_seconds > 86400)
    return MakeError("--base-timeout", "expected seconds above 0 (at most a day)");
  if (sources.empty() && options.base.images.empty()) return std::unique_ptr<ImageBaseResolver>();
  return std::unique_ptr<ImageBaseResolver>(new ImageBaseResolver(options, context, knowledge, std::move(sources)));
}

ImageBaseResolver::ImageBaseResolver(const ImageReadOptions& options, const Context& context,
                                     const Knowledge& knowledge, std::vector<std::string> sources)
    : options_(options), context_(context), knowledge_(knowledge), sources_(std::move(sources)) {
  context_.progress = nullptr;  // a base's layers are not the input's progress
}

long ImageBaseResolver::RemainingMs() const {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - std::chrono::steady_clock::now());
  return static_cast<long>(std::max<int64_t>(0, left.count()));
}

Result<dockerfile::BaseLookup> ImageBaseResolver::Resolve(const std::string& ref, const std::string& platform) {
  // Several inputs are read at once with --images-from / --all-tags: one
  // lookup at a time keeps the memo and the one budget consistent.
  std::lock_guard<std::mutex> lock(mutex_);
  std::string key = ref + " " + platform;
  if (auto found = memo_.find(key); found != memo_.end()) {
    dockerfile::BaseLookup again = found->second;
    again.note.clear();  // said once per base
    return again;
  }
  // The budget starts with the first lookup, not with the scan: images read
  // before the first Dockerfile do not spend it.
  if (!started_) {
    started_ = true;
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::milliseconds(static_cast<int64_t>(options_.base.timeout_seconds * 1000));
  }
  auto lookup = Lookup(ref, platform);
  if (!lookup.ok()) return lookup.error();
  memo_[key] = *lookup;
  return lookup;
}

Result<dockerfile::BaseLookup> ImageBaseResolver::Lookup(const std::string& ref, const std::string& platform) {
  ImageReadOptions options = options_;
  options.platform = platform;
  auto read = ScannerOptions(options, context_);
  if (!read.ok()) return read.error();
  std::unique_ptr<LayerCache> cache = AttachCache(*read, options, context_);
  dockerfile::BaseLookup out;

  if (auto local = options_.base.images.find(ref); local != options_.base.images.end()) {
    auto source = OpenLocalImage(local->second, read->open);
    if (!source.ok()) return WithSubject(source.error(), "--base-image " + ref.substr(0, 200));
    auto base = ScanBase(**source, BaseSource::kLocal, *read, knowledge_);
    if (!base.ok()) return WithSubject(base.error(), "--base-image " + ref.substr(0, 200));
    out.base = std::move(*base);
    return out;
  }
  if (sources_.empty() || ref == "scratch") return out;
  if (!registry::ParseReference(ref).ok()) {
    out.note = "not an image reference";
    return out;
  }
  std::vector<std::string> misses;
  const std::string host = registry::ParseReference(ref)->registry;
  // The first reason each source gave in this scan, for Summary().
  auto remember = [this](const std::string& where, const std::string& miss) {
    for (const auto& [known, reason] : reasons_)
      if (known == where) return;
    size_t colon = miss.find(": ");
    reasons_.emplace_back(where, colon == std::string::npos ? miss : miss.substr(colon + 2));
  };
  for (const std::string& from : sources_) {
    long left = RemainingMs();
    const std::string where = from == "registry" ? "registry " + host : from;
    if (left <= 0) {
      misses.push_back(from + ": not asked, the " + std::to_string(options_.base.timeout_seconds).substr(0, 6) +
                       " s budget (--base-timeout) was spent");
      remember(where, misses.back());
      continue;
    }
    if (auto down = unreachable_.find(where); down != unreachable_.end()) {
      misses.push_back(from + ": not asked, unreachable earlier in this scan (" + down->second.substr(0, 200) + ")");
      continue;
    }
    size_t before = misses.size();
    auto opened = OpenReference(ref, read->open, {from}, options_.registry, context_, left, &misses);
    // The engine's socket missing, or a registry failing below HTTP (DNS,
    // connect, TLS, a stalled transfer: the registry client's "network
    // error"), holds for every base of this scan; a 401 or 404 does not.
    if (!opened.ok() && misses.size() > before) {
      const std::string& miss = misses.back();
      remember(where, miss);
      if (miss.find("no engine socket") != std::string::npos || miss.find("network error: ") != std::string::npos)
        unreachable_[where] = miss.substr(miss.find(": ") + 2);
    }
    if (!opened.ok()) continue;
    auto base = ScanBase(*opened->source, opened->from, *read, knowledge_);
    if (base.ok()) {
      out.base = std::move(*base);
      return out;
    }
    misses.push_back(from + ": " + base.error().ToString());
    remember(where, misses.back());
  }
  out.note = Join(misses);
  if (!misses.empty() && std::find(fallbacks_.begin(), fallbacks_.end(), ref) == fallbacks_.end())
    fallbacks_.push_back(ref);
  return out;
}

std::string ImageBaseResolver::Summary() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (fallbacks_.empty()) return "";
  std::string line = fallbacks_.size() == 1 ? "base image " + fallbacks_.front().substr(0, 200)
                                            : std::to_string(fallbacks_.size()) + " base images";
  line += " from the knowledge tables, not read (";
  for (size_t i = 0; i < reasons_.size(); ++i) {
    std::string reason = reasons_[i].second;
    if (reason.size() > 160) reason = reason.substr(0, 157) + "...";
    line += (i ? "; " : "") + reasons_[i].first + ": " + reason;
  }
  return line + "); --base-from knowledge uses the tables without lookups";
}

}  // namespace imagelint::pipeline
