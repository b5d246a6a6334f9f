// ExplainReadFailures: a layer reader whose first decoding failure is traced
// back to a blob that does not match its digest, when that is the cause.
#include "imagelint/scan.h"

namespace imagelint {
namespace {

Error ExplainOnce(const Error& error, const ExplainFailure& explain) {
  if (error.message.find("digest mismatch") != std::string::npos) return error;
  if (auto cause = explain(error)) return *cause;
  return error;
}

class ExplainedReader final : public EntryReader {
 public:
  ExplainedReader(std::unique_ptr<EntryReader> inner, ExplainFailure explain)
      : inner_(std::move(inner)), explain_(std::move(explain)) {}
  Result<std::optional<EntryInfo>> Next() override {
    auto next = inner_->Next();
    if (!next.ok()) return Explain(next.error());
    return next;
  }
  Result<size_t> ReadContent(std::span<uint8_t> buffer) override {
    auto n = inner_->ReadContent(buffer);
    if (!n.ok()) return Explain(n.error());
    return n;
  }
  uint64_t BlobBytesRead() const override { return inner_->BlobBytesRead(); }
  uint64_t TarBytesRead() const override { return inner_->TarBytesRead(); }
  std::string VerifiedDigest() const override { return inner_->VerifiedDigest(); }

 private:
  Error Explain(Error error) {
    if (explained_) return error;
    explained_ = true;  // once: a reader that failed keeps failing
    return ExplainOnce(error, explain_);
  }

  std::unique_ptr<EntryReader> inner_;
  ExplainFailure explain_;
  bool explained_ = false;
};

}  // namespace

Result<std::unique_ptr<EntryReader>> ExplainReadFailures(Result<std::unique_ptr<EntryReader>> opened,
                                                         ExplainFailure explain) {
  if (!opened.ok()) return ExplainOnce(opened.error(), explain);
  return std::unique_ptr<EntryReader>(std::make_unique<ExplainedReader>(std::move(*opened), std::move(explain)));
}

}  // namespace imagelint
