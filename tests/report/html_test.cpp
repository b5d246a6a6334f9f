// --format html in a real browser: Debian's chromium, headless, loads the
// page from a file with the network off; the DOM it builds has the images x
// pools matrix with a class per verdict, and its screenshot is a PNG of the
// window's size that shows the verdict colours (not a blank page).
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>

#include <doctest/doctest.h>

#include "imagelint/analysis.h"
#include "imagelint/report.h"
#include "report/sample_report.h"
#include "support/test_support.h"

namespace imagelint::report {
namespace {

using nlohmann::json;
using testing::Typed;
namespace fs = std::filesystem;

constexpr int kWidth = 1280;
constexpr int kHeight = 1000;

std::string Chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    if (testing::HaveProgram(name)) return name;
  }
  return "";
}

// The sample's two images and the undecided Dockerfile: every verdict kind.
json ThreeImages() {
  json report = testing::SampleReport();
  json undecided = testing::UndecidedReport();
  report["images"].push_back(undecided["images"][0]);
  report["fleet"]["pools"].push_back(undecided["fleet"]["pools"].back());  // gh200-arm64
  for (const auto& rule : undecided["rules"]) report["rules"].push_back(rule);
  return testing::Finalized(report);
}

std::vector<std::string> BrowserArgs(const fs::path& profile) {
  return {Chromium(),
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--disable-dev-shm-usage",
          // Nothing may leave the page: any host name fails to resolve.
          "--host-resolver-rules=MAP * ~NOTFOUND",
          "--user-data-dir=" + profile.string()};
}

struct Png {
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgb;  // width * height * 3
};

uint32_t Be32(const uint8_t* p) { return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3]; }

// Enough PNG for a browser screenshot: 8-bit RGB or RGBA, not interlaced.
std::optional<Png> DecodePng(const std::vector<uint8_t>& bytes, std::string& why) {
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (bytes.size() < 33 || std::memcmp(bytes.data(), kSignature, 8) != 0) {
    why = "not a PNG";
    return std::nullopt;
  }
  Png png;
  int color_type = -1;
  std::vector<uint8_t> idat;
  for (size_t at = 8; at + 12 <= bytes.size();) {
    uint32_t length = Be32(&bytes[at]);
    if (length > bytes.size() - at - 12) {
      why = "truncated chunk";
      return std::nullopt;
    }
    std::string type(reinterpret_cast<const char*>(&bytes[at + 4]), 4);
    const uint8_t* data = &bytes[at + 8];
    if (type == "IHDR" && length >= 13) {
      png.width = Be32(data);
      png.height = Be32(data + 4);
      if (data[8] != 8 || data[12] != 0) {
        why = "unexpected bit depth or interlace";
        return std::nullopt;
      }
      color_type = data[9];
    } else if (type == "IDAT") {
      idat.insert(idat.end(), data, data + length);
    }
    at += 12 + length;
  }
  if ((color_type != 2 && color_type != 6) || png.width == 0 || png.height == 0 || png.width > 8000 || png.height > 8000) {
    why = "unexpected colour type or size";
    return std::nullopt;
  }
  size_t channels = color_type == 6 ? 4 : 3;
  size_t stride = png.width * channels;
  std::vector<uint8_t> raw((stride + 1) * png.height);
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, idat.data(), idat.size()) != Z_OK || raw_size != raw.size()) {
    why = "bad image data";
    return std::nullopt;
  }
  std::vector<uint8_t> previous(stride, 0), row(stride);
  png.rgb.reserve(size_t(png.width) * png.height * 3);
  for (uint32_t y = 0; y < png.height; ++y) {
    const uint8_t* line = &raw[y * (stride + 1)];
    uint8_t filter = line[0];
    for (size_t x = 0; x < stride; ++x) {
      int a = x >= channels ? row[x - channels] : 0, b = previous[x], c = x >= channels ? previous[x - channels] : 0;
      int value = line[1 + x];
      switch (filter) {
        case 1: value += a; break;
        case 2: value += b; break;
        case 3: value += (a + b) / 2; break;
        case 4: {
          int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          value += (pa <= pb && pa <= pc) ? a : pb <= pc ? b : c;
          break;
        }
        default: break;
      }
      row[x] = static_cast<uint8_t>(value);
    }
    for (size_t x = 0; x < png.width; ++x) {
      png.rgb.push_back(row[x * channels]);
      png.rgb.push_back(row[x * channels + 1]);
      png.rgb.push_back(row[x * channels + 2]);
    }
    previous = row;
  }
  return png;
}

size_t PixelsNear(const Png& png, uint32_t rgb, int tolerance = 6) {
  int r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
  size_t n = 0;
  for (size_t i = 0; i + 2 < png.rgb.size(); i += 3) {
    if (std::abs(png.rgb[i] - r) <= tolerance && std::abs(png.rgb[i + 1] - g) <= tolerance &&
        std::abs(png.rgb[i + 2] - b) <= tolerance)
      ++n;
  }
  return n;
}

TEST_CASE("html: self-contained, the matrix in Chromium's DOM and on its screenshot") {
  json report = ThreeImages();
  RenderOptions options;
  options.docs_dir = (testing::SourceDir() / "docs").string();
  std::string html = RenderHtml(Typed(report), RulesFromReport(Typed(report)), options);
  // Self-contained: no script, no stylesheet, image, font or frame from elsewhere.
  // (Rule pages may mention addresses as text; nothing is linked without --docs-url.)
  for (const char* forbidden : {"<script", "<link", "<img", "<iframe", "<object", "<embed", "src=", "url(", "@import",
                                "href=\"http"})
    CHECK_MESSAGE(html.find(forbidden) == std::string::npos, forbidden);
  CHECK(html.find("default-src 'none'") != std::string::npos);  // and the page forbids fetching anything

  if (!testing::NeedExternal("chromium", !Chromium().empty(), "apt-get install chromium (scripts/setup.sh does)")) return;
  testing::TempDir dir;
  fs::path page = dir / "report.html";
  testing::WriteFileText(page, html);
  // An artifact to look at when the test runs in CI or by hand.
  if (const char* keep = std::getenv("IMAGELINT_KEEP_HTML")) testing::WriteFileText(fs::path(keep) / "report.html", html);

  auto dom_args = BrowserArgs(dir / "profile-dom");
  dom_args.push_back("--dump-dom");
  dom_args.push_back("file://" + page.string());
  auto dom = testing::RunCommand(dom_args, "", 120);
  REQUIRE_MESSAGE(dom.exit_code == 0, dom.err);
  // One cell per image x pool (3 images x 4 pools, one of them not in the
  // sample fleet: a dash), each with its verdict's class.
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = dom.out.find(needle); at != std::string::npos; at = dom.out.find(needle, at + 1)) ++n;
    return n;
  };
  CHECK(count("<td class=\"verdict verdict-") == 9);
  CHECK(count("class=\"verdict verdict-fail\"") == 2);
  CHECK(count("class=\"verdict verdict-undecided\"") == 2);
  CHECK(count("class=\"verdict verdict-warn\"") == 1);
  CHECK(count("class=\"verdict verdict-pass\"") == 4);
  CHECK(count("<th class=\"pool-head\"") == 4);
  CHECK(count("<th class=\"image-head\">") == 3);
  CHECK(dom.out.find("data-image=\"build/app.tar\" data-pool=\"rtx3090-460\" data-status=\"fail\"><span "
                     "class=\"status\">fail</span><span class=\"error\">804 cudaErrorCompatNotSupportedOnDevice</span>") !=
        std::string::npos);
  CHECK(count("<div class=\"card undecided\"") == 1);
  CHECK(count("<div class=\"card error\"") == 2);
  CHECK(dom.out.find("<table class=\"fleet\">") != std::string::npos);
  CHECK(dom.out.find("Rule IL013 help</summary>") != std::string::npos);  // docs/rules/IL013.md, embedded

  auto shot_args = BrowserArgs(dir / "profile-shot");
  fs::path shot = dir / "report.png";
  shot_args.push_back("--hide-scrollbars");
  shot_args.push_back("--window-size=" + std::to_string(kWidth) + "," + std::to_string(kHeight));
  shot_args.push_back("--screenshot=" + shot.string());
  shot_args.push_back("file://" + page.string());
  auto taken = testing::RunCommand(shot_args, "", 120);
  REQUIRE_MESSAGE(taken.exit_code == 0, taken.err);
  REQUIRE(fs::exists(shot));
  if (const char* keep = std::getenv("IMAGELINT_KEEP_HTML")) fs::copy_file(shot, fs::path(keep) / "report.png", fs::copy_options::overwrite_existing);
  std::string why;
  auto png = DecodePng(testing::ReadFileBytes(shot), why);
  REQUIRE_MESSAGE(png.has_value(), why);
  CHECK(png->width == kWidth);
  CHECK(png->height == kHeight);
  // Not blank: many colours, and each verdict's own background.
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 2 < png->rgb.size(); i += 3 * 7)
    colours.insert((uint32_t(png->rgb[i]) << 16) | (uint32_t(png->rgb[i + 1]) << 8) | png->rgb[i + 2]);
  CHECK(colours.size() > 50);
  CHECK(PixelsNear(*png, 0xfde7e4) > 2000);  // fail
  CHECK(PixelsNear(*png, 0xe3f4e6) > 2000);  // pass
  CHECK(PixelsNear(*png, 0xefe9fa) > 500);   // undecided (striped)
  CHECK(PixelsNear(*png, 0x1d2129) > 20000);  // the header band
}

}  // namespace
}  // namespace imagelint::report
