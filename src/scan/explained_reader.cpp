// ExplainReadFailures: a layer reader whose first decoding failure is traced
// back to a blob that does not match its digest, when that is the cause.
#include "imagelint/scan.h"

namespace imagelint {
namespace {

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
    if (explained_ || error.message.find("digest mismatch") != std::string::npos) return error;
    explained_ = true;  // once: a reader that failed keeps failing
    if (auto cause = explain_(error)) return *cause;
    return error;
  }

  std::unique_ptr<EntryReader> inner_;
  ExplainFailure explain_;
  bool explained_ = false;
};

}  // namespace

std::unique_ptr<EntryReader> ExplainReadFailures(std::unique_ptr<EntryReader> inner, ExplainFailure explain) {
  return std::make_unique<ExplainedReader>(std::move(inner), std::move(explain));
}

}  // namespace imagelint
