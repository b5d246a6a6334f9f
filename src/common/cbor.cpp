// ParseCbor (json.h): CBOR (RFC 8949) into a JSON value, for the caches
// imagelint writes with nlohmann's to_cbor and reads back on every run (the
// knowledge tables, parsed layers, facts).
//
// Why not nlohmann's from_cbor: it reads a byte at a time and appends string
// bytes one by one, which made decoding the knowledge cache (~280 KB) a third
// of a single Dockerfile check. This reader takes strings whole from the
// buffer and builds the value directly.
//
// The bytes are hostile (a cache directory can be shared or tampered with):
// every length is checked against the bytes left before it is used, no
// container is reserved beyond what the remaining bytes could hold, depth and
// memory are held to a DocumentBudget, and any error is a value naming the
// byte offset. What it accepts is what nlohmann's reader accepts with tags
// refused: integers, byte and text strings (definite or in chunks), arrays,
// maps with text keys (a repeated key keeps the last value), false, true,
// null, and half, single and double floats.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/document_budget.h"
#include "common/json.h"

namespace imagelint {
namespace {

using Json = nlohmann::json;

constexpr uint8_t kBreak = 0xff;

enum Major : uint8_t { kUnsigned = 0, kNegative, kBytes, kText, kArray, kMap, kTag, kSimple };

class CborReader {
 public:
  CborReader(std::span<const uint8_t> bytes, size_t max_depth) : bytes_(bytes), budget_(max_depth, bytes.size()) {}

  bool Document(Json& out) {
    if (!Value(out)) return false;
    if (pos_ != bytes_.size()) return Fail("bytes after the end of the value");
    return true;
  }
  const std::string& message() const { return budget_.message(); }
  size_t offset() const { return error_offset_; }

 private:
  bool Fail(const std::string& what) {
    if (!budget_.failed()) error_offset_ = pos_;
    budget_.Fail(what);
    return false;
  }
  size_t Left() const { return bytes_.size() - pos_; }

  // An item's head: its major type, additional information and argument (a
  // count, length or value); additional information 31 is an indefinite
  // length (or, for major type 7, a break).
  struct ItemHead {
    uint8_t major = 0;
    uint8_t info = 0;
    uint64_t argument = 0;
    bool indefinite() const { return info == 31; }
  };

  bool Head(ItemHead& head) {
    if (Left() == 0) return Fail("unexpected end of input");
    const uint8_t initial = bytes_[pos_++];
    head.major = initial >> 5;
    head.info = initial & 31;
    head.argument = 0;
    if (head.info < 24) {
      head.argument = head.info;
      return true;
    }
    if (head.indefinite()) return true;
    if (head.info > 27) return Fail("reserved additional information " + std::to_string(head.info));
    const size_t width = size_t{1} << (head.info - 24);  // 1, 2, 4 or 8 bytes, big-endian
    if (Left() < width) return Fail("unexpected end of input");
    for (size_t i = 0; i < width; ++i) head.argument = (head.argument << 8) | bytes_[pos_++];
    return true;
  }

  // A definite byte or text string, or the chunks of an indefinite one (each
  // a definite string of the same major type), appended to `out`.
  bool StringBody(const ItemHead& head, std::string& out) {
    if (!head.indefinite()) {
      const uint64_t length = head.argument;
      if (length > Left()) return Fail("a string of " + std::to_string(length) + " bytes runs past the end");
      out.append(reinterpret_cast<const char*>(bytes_.data() + pos_), length);
      pos_ += length;
      return true;
    }
    while (true) {
      if (Left() == 0) return Fail("unexpected end of input");
      if (bytes_[pos_] == kBreak) {
        ++pos_;
        return true;
      }
      ItemHead chunk;
      if (!Head(chunk)) return false;
      if (chunk.major != head.major || chunk.indefinite())
        return Fail("a chunk of an indefinite string is not a definite string of the same type");
      if (!StringBody(chunk, out)) return false;
    }
  }

  // Whether another item follows in the container `head` opened (of
  // `argument` items, or of indefinite length ended by a break byte) after
  // `done` items.
  bool More(const ItemHead& head, uint64_t done, bool& more) {
    if (!head.indefinite()) {
      more = done < head.argument;
      return true;
    }
    if (Left() == 0) return Fail("unexpected end of input");
    more = bytes_[pos_] != kBreak;
    if (!more) ++pos_;
    return true;
  }

  bool Array(const ItemHead& head, Json& out) {
    if (!budget_.Enter() || !budget_.Charge(DocumentBudget::kArray)) return false;
    out = Json::array();
    auto& items = out.get_ref<Json::array_t&>();
    // Every item takes a byte at least, so the bytes left bound the count;
    // the reservation is capped as well (a value is 16 bytes, a byte is not).
    if (!head.indefinite()) items.reserve(static_cast<size_t>(std::min<uint64_t>({head.argument, Left(), 4096})));
    bool more = false;
    for (uint64_t done = 0;; ++done) {
      if (!More(head, done, more)) return false;
      if (!more) break;
      items.emplace_back();
      if (!Value(items.back())) return false;
    }
    budget_.Leave();
    return true;
  }

  bool Map(const ItemHead& head, Json& out) {
    if (!budget_.Enter() || !budget_.Charge(DocumentBudget::kObject)) return false;
    out = Json::object();
    auto& fields = out.get_ref<Json::object_t&>();
    bool more = false;
    std::string key;
    for (uint64_t done = 0;; ++done) {
      if (!More(head, done, more)) return false;
      if (!more) break;
      ItemHead key_head;
      if (!Head(key_head)) return false;
      if (key_head.major != kText) return Fail("a map key is not a text string");
      key.clear();
      if (!StringBody(key_head, key)) return false;
      if (!budget_.Charge(DocumentBudget::kKey + key.size())) return false;
      // nlohmann writes keys in order, so the end is the usual place.
      Json& slot = fields.insert_or_assign(fields.end(), key, Json())->second;
      if (!Value(slot)) return false;
    }
    budget_.Leave();
    return true;
  }

  static double HalfFloat(uint16_t half) {
    const int exponent = (half >> 10) & 0x1f;
    const int mantissa = half & 0x3ff;
    double value;
    if (exponent == 0)
      value = std::ldexp(mantissa, -24);
    else if (exponent != 31)
      value = std::ldexp(mantissa + 1024, exponent - 25);
    else
      value = mantissa == 0 ? INFINITY : NAN;
    return (half & 0x8000) ? -value : value;
  }

  bool Simple(const ItemHead& head, Json& out) {
    if (!budget_.Charge(DocumentBudget::kScalar)) return false;
    const uint64_t argument = head.argument;
    switch (head.info) {
      case 20: out = false; return true;
      case 21: out = true; return true;
      case 22: out = nullptr; return true;
      case 25: out = HalfFloat(static_cast<uint16_t>(argument)); return true;
      case 26: {
        float value;
        const uint32_t bits = static_cast<uint32_t>(argument);
        std::memcpy(&value, &bits, sizeof value);
        out = static_cast<double>(value);
        return true;
      }
      case 27: {
        double value;
        std::memcpy(&value, &argument, sizeof value);
        out = value;
        return true;
      }
      case 31: return Fail("a break byte outside a container of indefinite length");
      default: return Fail("unsupported simple value " + std::to_string(head.info < 24 ? head.info : argument));
    }
  }

  bool Value(Json& out) {
    ItemHead head;
    if (!Head(head)) return false;
    const uint64_t argument = head.argument;
    if (head.indefinite() && (head.major == kUnsigned || head.major == kNegative || head.major == kTag))
      return Fail("indefinite length on an integer or tag");
    switch (head.major) {
      case kUnsigned:
        if (!budget_.Charge(DocumentBudget::kScalar)) return false;
        out = argument;
        return true;
      case kNegative:
        if (argument > static_cast<uint64_t>(INT64_MAX)) return Fail("a negative integer below -2^63");
        if (!budget_.Charge(DocumentBudget::kScalar)) return false;
        out = -1 - static_cast<int64_t>(argument);
        return true;
      case kBytes: {
        std::string data;
        if (!StringBody(head, data)) return false;
        if (!budget_.Charge(DocumentBudget::kBinary + data.size())) return false;
        out = Json::binary(std::vector<uint8_t>(data.begin(), data.end()));
        return true;
      }
      case kText: {
        std::string text;
        if (!StringBody(head, text)) return false;
        if (!budget_.Charge(DocumentBudget::kString + text.size())) return false;
        out = std::move(text);
        return true;
      }
      case kArray: return Array(head, out);
      case kMap: return Map(head, out);
      case kTag: return Fail("tags are not supported");
      default: return Simple(head, out);
    }
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  DocumentBudget budget_;
  size_t error_offset_ = 0;
};

}  // namespace

Result<Json> ParseCbor(std::span<const uint8_t> bytes, const std::string& subject, size_t max_depth) {
  Json root;
  CborReader reader(bytes, max_depth);
  if (!reader.Document(root)) return MakeErrorAt(subject, reader.offset(), "not valid CBOR: " + reader.message());
  return root;
}

}  // namespace imagelint
