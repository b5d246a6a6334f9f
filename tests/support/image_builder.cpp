#include "support/image_builder.h"

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "imagelint/digest.h"

namespace imagelint::testing {

namespace fs = std::filesystem;
using json = nlohmann::json;

// ---- description helpers -------------------------------------------------

namespace {

std::string DirName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}
std::string BaseName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

TestLayer& TestLayer::File(const std::string& path, const std::string& content, uint32_t mode) {
  entries.push_back({TestEntry::Kind::kFile, path, content, "", mode, std::nullopt});
  return *this;
}
TestLayer& TestLayer::Dir(const std::string& path, uint32_t mode) {
  entries.push_back({TestEntry::Kind::kDir, path, "", "", mode, std::nullopt});
  return *this;
}
TestLayer& TestLayer::Symlink(const std::string& path, const std::string& target) {
  entries.push_back({TestEntry::Kind::kSymlink, path, "", target, 0777, std::nullopt});
  return *this;
}
TestLayer& TestLayer::Hardlink(const std::string& path, const std::string& target) {
  entries.push_back({TestEntry::Kind::kHardlink, path, "", target, 0644, std::nullopt});
  return *this;
}
TestLayer& TestLayer::Whiteout(const std::string& path) {
  std::string dir = DirName(path);
  return File((dir.empty() ? "" : dir + "/") + ".wh." + BaseName(path), "");
}
TestLayer& TestLayer::Opaque(const std::string& dir) { return File(dir + "/.wh..wh..opq", ""); }
TestLayer& TestLayer::LyingFile(const std::string& path, const std::string& content,
                                uint64_t declared_size) {
  entries.push_back({TestEntry::Kind::kFile, path, content, "", 0644, declared_size});
  return *this;
}

TestLayer& TestImage::Layer(Compression compression) {
  layers.emplace_back();
  layers.back().compression = compression;
  return layers.back();
}

std::string TestDigest(const std::vector<uint8_t>& bytes) { return Sha256Digest(bytes); }

// ---- tar writing with libarchive ------------------------------------------

namespace {

struct ArchiveOut {
  std::vector<uint8_t> bytes;
};

la_ssize_t WriteCallback(struct archive*, void* client, const void* buffer, size_t length) {
  auto* out = static_cast<ArchiveOut*>(client);
  auto* data = static_cast<const uint8_t*>(buffer);
  out->bytes.insert(out->bytes.end(), data, data + length);
  return static_cast<la_ssize_t>(length);
}

class TarWriter {
 public:
  TarWriter() : archive_(archive_write_new()) {
    archive_write_set_format_pax_restricted(archive_);
    archive_write_set_bytes_per_block(archive_, 512);
    archive_write_set_bytes_in_last_block(archive_, 1);
    if (archive_write_open(archive_, &out_, nullptr, WriteCallback, nullptr) != ARCHIVE_OK) {
      throw std::runtime_error("archive_write_open failed");
    }
  }
  ~TarWriter() {
    if (archive_) archive_write_free(archive_);
  }

  void Add(const TestEntry& e) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.path.c_str());
    archive_entry_set_mtime(entry, 0, 0);
    archive_entry_set_uid(entry, 0);
    archive_entry_set_gid(entry, 0);
    switch (e.kind) {
      case TestEntry::Kind::kFile:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_size(entry, static_cast<la_int64_t>(e.content.size()));
        break;
      case TestEntry::Kind::kDir:
        archive_entry_set_filetype(entry, AE_IFDIR);
        archive_entry_set_size(entry, 0);
        break;
      case TestEntry::Kind::kSymlink:
        archive_entry_set_filetype(entry, AE_IFLNK);
        archive_entry_set_symlink(entry, e.link.c_str());
        archive_entry_set_size(entry, 0);
        break;
      case TestEntry::Kind::kHardlink:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_hardlink(entry, e.link.c_str());
        archive_entry_set_size(entry, 0);
        break;
    }
    archive_entry_set_perm(entry, e.mode);
    if (archive_write_header(archive_, entry) != ARCHIVE_OK) {
      std::string message = archive_error_string(archive_) ? archive_error_string(archive_) : "?";
      archive_entry_free(entry);
      throw std::runtime_error("archive_write_header(" + e.path + "): " + message);
    }
    if (e.kind == TestEntry::Kind::kFile && !e.content.empty()) {
      archive_write_data(archive_, e.content.data(), e.content.size());
    }
    archive_entry_free(entry);
  }

  void AddFile(const std::string& path, const std::vector<uint8_t>& content) {
    Add({TestEntry::Kind::kFile, path, std::string(content.begin(), content.end()), "", 0644,
         std::nullopt});
  }
  void AddFile(const std::string& path, const std::string& content) {
    Add({TestEntry::Kind::kFile, path, content, "", 0644, std::nullopt});
  }

  std::vector<uint8_t> Finish() {
    archive_write_close(archive_);
    archive_write_free(archive_);
    archive_ = nullptr;
    return std::move(out_.bytes);
  }

 private:
  struct archive* archive_;
  ArchiveOut out_;
};

// A bare ustar header, for entries whose declared size lies.
std::vector<uint8_t> UstarHeader(const std::string& name, uint64_t size) {
  std::vector<uint8_t> header(512, 0);
  std::memcpy(header.data(), name.data(), std::min<size_t>(name.size(), 99));
  std::snprintf(reinterpret_cast<char*>(&header[100]), 8, "%07o", 0644);
  std::snprintf(reinterpret_cast<char*>(&header[108]), 8, "%07o", 0);
  std::snprintf(reinterpret_cast<char*>(&header[116]), 8, "%07o", 0);
  if (size < 077777777777ull) {
    std::snprintf(reinterpret_cast<char*>(&header[124]), 12, "%011llo",
                  static_cast<unsigned long long>(size));
  } else {  // base-256
    header[124] = 0x80;
    for (int i = 0; i < 8; ++i) header[135 - i] = static_cast<uint8_t>(size >> (8 * i));
  }
  std::snprintf(reinterpret_cast<char*>(&header[136]), 12, "%011o", 0);
  header[156] = '0';
  std::memcpy(&header[257], "ustar", 6);
  header[263] = '0';
  header[264] = '0';
  std::memset(&header[148], ' ', 8);
  unsigned sum = 0;
  for (uint8_t b : header) sum += b;
  std::snprintf(reinterpret_cast<char*>(&header[148]), 8, "%06o", sum);
  header[155] = ' ';
  return header;
}

}  // namespace

std::vector<uint8_t> BuildLayerTar(const TestLayer& layer) {
  TarWriter writer;
  const TestEntry* liar = nullptr;
  for (const auto& entry : layer.entries) {
    if (entry.declared_size) {
      liar = &entry;
      break;
    }
    writer.Add(entry);
  }
  std::vector<uint8_t> tar = writer.Finish();
  if (liar) {
    if (tar.size() >= 1024) tar.resize(tar.size() - 1024);  // drop the end-of-archive blocks
    std::vector<uint8_t> header = UstarHeader(liar->path, *liar->declared_size);
    tar.insert(tar.end(), header.begin(), header.end());
    tar.insert(tar.end(), liar->content.begin(), liar->content.end());
  }
  return tar;
}

std::vector<uint8_t> Compress(const std::vector<uint8_t>& bytes, Compression compression) {
  if (compression == Compression::kNone) return bytes;
  if (compression == Compression::kZstd) {
    std::vector<uint8_t> out(ZSTD_compressBound(bytes.size()));
    size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 3);
    if (ZSTD_isError(n)) throw std::runtime_error("ZSTD_compress failed");
    out.resize(n);
    return out;
  }
  z_stream stream{};
  if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::vector<uint8_t> out(deflateBound(&stream, bytes.size()) + 64);
  stream.next_in = const_cast<Bytef*>(bytes.data());
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = out.data();
  stream.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  out.resize(stream.total_out);
  return out;
}

// ---- image assembly --------------------------------------------------------

namespace {

std::string Hex(const std::string& digest) { return digest.substr(digest.find(':') + 1); }

std::vector<uint8_t> JsonBytes(const json& value) {
  std::string text = value.dump();
  return {text.begin(), text.end()};
}

std::string LayerMediaType(Compression compression) {
  switch (compression) {
    case Compression::kNone: return "application/vnd.oci.image.layer.v1.tar";
    case Compression::kGzip: return "application/vnd.oci.image.layer.v1.tar+gzip";
    case Compression::kZstd: return "application/vnd.oci.image.layer.v1.tar+zstd";
  }
  return "";
}

struct BuiltLayer {
  std::vector<uint8_t> blob;
  std::string digest;
  std::string diff_id;
  std::string media_type;
};

struct BuiltImage {
  std::vector<BuiltLayer> layers;
  std::vector<uint8_t> config;
  std::string config_digest;
  std::vector<uint8_t> manifest;
  std::string manifest_digest;
  json platform;
};

BuiltImage Build(const TestImage& image, const WriteOptions& options) {
  BuiltImage built;
  json diff_ids = json::array();
  json history = json::array();
  for (const auto& created_by : image.empty_history) {
    history.push_back({{"created", "1970-01-01T00:00:00Z"}, {"created_by", created_by}, {"empty_layer", true}});
  }
  for (size_t i = 0; i < image.layers.size(); ++i) {
    const TestLayer& layer = image.layers[i];
    BuiltLayer out;
    std::vector<uint8_t> tar;
    if (layer.raw_blob) {
      out.blob = *layer.raw_blob;
      tar = out.blob;
    } else {
      tar = BuildLayerTar(layer);
      out.blob = Compress(tar, layer.compression);
    }
    out.diff_id = TestDigest(tar);
    out.digest = TestDigest(out.blob);
    out.media_type = LayerMediaType(layer.compression);
    diff_ids.push_back(i == 0 && options.wrong_diff_id ? TestDigest({1, 2, 3}) : out.diff_id);
    history.push_back({{"created", "1970-01-01T00:00:00Z"},
                       {"created_by", layer.created_by.empty() ? "layer " + std::to_string(i) : layer.created_by}});
    built.layers.push_back(std::move(out));
  }
  json config = {{"architecture", image.architecture},
                 {"os", image.os},
                 {"created", "1970-01-01T00:00:00Z"},
                 {"config", {{"Env", image.env}}},
                 {"rootfs", {{"type", "layers"}, {"diff_ids", diff_ids}}},
                 {"history", history}};
  if (!image.variant.empty()) config["variant"] = image.variant;
  if (!image.labels.empty()) config["config"]["Labels"] = image.labels;
  built.config = JsonBytes(config);
  built.config_digest = TestDigest(built.config);

  json layers = json::array();
  for (const auto& layer : built.layers) {
    layers.push_back({{"mediaType", layer.media_type}, {"digest", layer.digest}, {"size", layer.blob.size()}});
  }
  json manifest = {{"schemaVersion", 2},
                   {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                   {"config", {{"mediaType", "application/vnd.oci.image.config.v1+json"},
                               {"digest", built.config_digest},
                               {"size", built.config.size()}}},
                   {"layers", layers}};
  built.manifest = JsonBytes(manifest);
  built.manifest_digest = TestDigest(built.manifest);
  built.platform = {{"os", image.os}, {"architecture", image.architecture}};
  if (!image.variant.empty()) built.platform["variant"] = image.variant;
  return built;
}

std::string Tag(const std::string& ref) {
  size_t colon = ref.find_last_of(':');
  size_t slash = ref.find_last_of('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return "latest";
  return ref.substr(colon + 1);
}
std::string Repository(const std::string& ref) {
  size_t colon = ref.find_last_of(':');
  size_t slash = ref.find_last_of('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return ref;
  return ref.substr(0, colon);
}

// Files of an image in an output container (tar or directory), in write order.
struct OutFile {
  std::string path;
  std::vector<uint8_t> bytes;
  std::string symlink;  // non-empty: a symlink entry instead
};

// Changes one byte after `marker` in `bytes` (the first byte after it that
// `change` alters); the file keeps its name, which is its old digest.
void FlipAfter(std::vector<uint8_t>& bytes, const std::string& marker, uint8_t (*change)(uint8_t)) {
  auto at = std::search(bytes.begin(), bytes.end(), marker.begin(), marker.end());
  if (at == bytes.end()) throw std::runtime_error("test image: no \"" + marker + "\" to flip");
  for (auto it = at + static_cast<long>(marker.size()); it != bytes.end(); ++it) {
    if (change(*it) != *it) {
      *it = change(*it);
      return;
    }
  }
}

void Sabotage(std::vector<OutFile>& files, const std::string& first_layer_path, const WriteOptions& options,
              const std::string& config_path = "", const std::string& manifest_path = "") {
  for (auto& file : files) {
    if (options.corrupt_config && !config_path.empty() && file.path == config_path) {
      FlipAfter(file.bytes, "\"created\":\"", [](uint8_t c) -> uint8_t { return c == '0' ? '1' : c; });
    }
    if (options.corrupt_manifest && !manifest_path.empty() && file.path == manifest_path) {
      FlipAfter(file.bytes, "\"mediaType\":\"", [](uint8_t c) -> uint8_t {
        return c >= 'a' && c <= 'z' ? static_cast<uint8_t>(c - 'a' + 'A') : c;
      });
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].path != first_layer_path) continue;
    if (options.omit_layer_blob) {
      files.erase(files.begin() + static_cast<long>(i));
      return;
    }
    if (options.corrupt_layer_blob && !files[i].bytes.empty()) {
      files[i].bytes[files[i].bytes.size() / 2] ^= 0x01;
    }
    return;
  }
}

std::vector<OutFile> OciFiles(const std::vector<TestImage>& images, const std::vector<BuiltImage>& built,
                              const WriteOptions& options, bool with_docker_manifest, bool several_images = false) {
  std::vector<OutFile> files;
  auto blob_path = [](const std::string& digest) { return "blobs/sha256/" + Hex(digest); };
  auto add_blob = [&](const std::string& digest, const std::vector<uint8_t>& bytes) {
    for (const auto& f : files) {
      if (f.path == blob_path(digest)) return;
    }
    files.push_back({blob_path(digest), bytes, ""});
  };
  json manifests = json::array();
  for (size_t i = 0; i < built.size(); ++i) {
    for (const auto& layer : built[i].layers) add_blob(layer.digest, layer.blob);
    if (!(options.dangling_manifest && i == 0)) add_blob(built[i].config_digest, built[i].config);
    add_blob(built[i].manifest_digest, built[i].manifest);
    json descriptor = {{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                       {"digest", built[i].manifest_digest},
                       {"size", built[i].manifest.size()},
                       {"annotations", {{"io.containerd.image.name", images[i].ref},
                                        {"org.opencontainers.image.ref.name", Tag(images[i].ref)}}}};
    if ((built.size() > 1 && !several_images) || options.nested_index) descriptor["platform"] = built[i].platform;
    manifests.push_back(descriptor);
  }
  json index = {{"schemaVersion", 2}, {"mediaType", "application/vnd.oci.image.index.v1+json"}};
  if (options.nested_index) {
    json inner = index;
    inner["manifests"] = manifests;
    std::vector<uint8_t> inner_bytes = JsonBytes(inner);
    std::string inner_digest = TestDigest(inner_bytes);
    add_blob(inner_digest, inner_bytes);
    index["manifests"] = json::array({{{"mediaType", "application/vnd.oci.image.index.v1+json"},
                                       {"digest", inner_digest},
                                       {"size", inner_bytes.size()},
                                       {"annotations", {{"io.containerd.image.name", images[0].ref}}}}});
  } else {
    index["manifests"] = manifests;
  }
  files.push_back({"index.json", JsonBytes(index), ""});
  files.push_back({"oci-layout", JsonBytes({{"imageLayoutVersion", "1.0.0"}}), ""});
  if (with_docker_manifest) {
    json manifest = json::array();
    for (size_t i = 0; i < (several_images ? built.size() : 1); ++i) {
      json layers = json::array();
      for (const auto& layer : built[i].layers) layers.push_back(blob_path(layer.digest));
      manifest.push_back({{"Config", blob_path(built[i].config_digest)}, {"RepoTags", {images[i].ref}}, {"Layers", layers}});
    }
    files.push_back({"manifest.json", JsonBytes(manifest), ""});
  }
  if (!built[0].layers.empty()) {
    Sabotage(files, blob_path(built[0].layers[0].digest), options, blob_path(built[0].config_digest),
             blob_path(built[0].manifest_digest));
  }
  return files;
}

std::vector<OutFile> DockerFiles(const TestImage& image, const BuiltImage& built, const WriteOptions& options,
                                 bool skopeo) {
  std::vector<OutFile> files;
  json layers = json::array();
  std::string parent;
  std::string first_layer_path;
  for (size_t i = 0; i < built.layers.size(); ++i) {
    const BuiltLayer& layer = built.layers[i];
    std::string v1_id = Hex(TestDigest(JsonBytes({{"diff", layer.diff_id}, {"i", i}, {"parent", parent}})));
    json v1 = {{"id", v1_id}, {"created", "1970-01-01T00:00:00Z"}};
    if (!parent.empty()) v1["parent"] = parent;
    std::string layer_path;
    if (skopeo) {
      layer_path = Hex(layer.diff_id) + ".tar";
      files.push_back({layer_path, layer.blob, ""});
      files.push_back({v1_id + "/layer.tar", {}, "../" + layer_path});
    } else {
      layer_path = v1_id + "/layer.tar";
      files.push_back({layer_path, layer.blob, ""});
    }
    files.push_back({v1_id + "/VERSION", {'1', '.', '0'}, ""});
    files.push_back({v1_id + "/json", JsonBytes(v1), ""});
    layers.push_back(layer_path);
    if (i == 0) first_layer_path = layer_path;
    parent = v1_id;
  }
  std::string config_path = Hex(built.config_digest) + ".json";
  if (!options.dangling_manifest) files.push_back({config_path, built.config, ""});
  json manifest = json::array({{{"Config", config_path}, {"RepoTags", {image.ref}}, {"Layers", layers}}});
  files.push_back({"manifest.json", JsonBytes(manifest), ""});
  files.push_back({"repositories", JsonBytes({{Repository(image.ref), {{Tag(image.ref), parent}}}}), ""});
  if (!skopeo) {  // docker's order: layers, config, then the two JSON files (already so)
  }
  Sabotage(files, first_layer_path, options, config_path);
  return files;
}

void WriteBytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void WriteContainer(const std::vector<OutFile>& files, ImageKind kind, const fs::path& out,
                    const WriteOptions& options) {
  if (kind == ImageKind::kOciLayout) {
    fs::create_directories(out / "blobs" / "sha256");
    for (const auto& f : files) {
      fs::create_directories((out / f.path).parent_path());
      if (!f.symlink.empty()) {
        fs::create_symlink(f.symlink, out / f.path);
      } else {
        WriteBytes(out / f.path, f.bytes);
      }
    }
    return;
  }
  TarWriter writer;
  bool oci = kind == ImageKind::kOciArchive || kind == ImageKind::kDockerArchiveOci;
  if (oci) {
    writer.Add({TestEntry::Kind::kDir, "blobs/", "", "", 0755, std::nullopt});
    writer.Add({TestEntry::Kind::kDir, "blobs/sha256/", "", "", 0755, std::nullopt});
  }
  for (const auto& f : files) {
    if (!f.symlink.empty()) {
      writer.Add({TestEntry::Kind::kSymlink, f.path, "", f.symlink, 0777, std::nullopt});
    } else {
      writer.AddFile(f.path, f.bytes);
    }
  }
  std::vector<uint8_t> tar = writer.Finish();
  WriteBytes(out, options.gzip_outer ? Compress(tar, Compression::kGzip) : tar);
}

}  // namespace

void WriteMultiPlatform(const std::vector<TestImage>& images, ImageKind kind, const fs::path& out,
                        const WriteOptions& options) {
  if (images.empty()) throw std::runtime_error("WriteMultiPlatform: no images");
  std::vector<BuiltImage> built;
  for (const auto& image : images) built.push_back(Build(image, options));
  std::vector<OutFile> files;
  switch (kind) {
    case ImageKind::kDockerArchive:
    case ImageKind::kDockerArchiveSkopeo:
      if (images.size() != 1) throw std::runtime_error("docker-archive holds one platform");
      files = DockerFiles(images[0], built[0], options, kind == ImageKind::kDockerArchiveSkopeo);
      break;
    case ImageKind::kDockerArchiveOci:
      files = OciFiles(images, built, options, true);
      break;
    case ImageKind::kOciLayout:
    case ImageKind::kOciArchive:
      files = OciFiles(images, built, options, false);
      break;
  }
  WriteContainer(files, kind, out, options);
}

void WriteImages(const std::vector<TestImage>& images, ImageKind kind, const fs::path& out,
                 const WriteOptions& options) {
  if (images.empty()) throw std::runtime_error("WriteImages: no images");
  std::vector<BuiltImage> built;
  for (const auto& image : images) built.push_back(Build(image, options));
  std::vector<OutFile> files;
  if (kind == ImageKind::kDockerArchive || kind == ImageKind::kDockerArchiveSkopeo) {
    // One docker save of several names: shared files once, manifest.json and
    // repositories merged.
    json manifest = json::array();
    json repositories = json::object();
    for (size_t i = 0; i < images.size(); ++i) {
      for (auto& file : DockerFiles(images[i], built[i], options, kind == ImageKind::kDockerArchiveSkopeo)) {
        if (file.path == "manifest.json") {
          for (auto& item : json::parse(file.bytes.begin(), file.bytes.end())) manifest.push_back(item);
        } else if (file.path == "repositories") {
          repositories.merge_patch(json::parse(file.bytes.begin(), file.bytes.end()));
        } else if (std::none_of(files.begin(), files.end(), [&](const OutFile& f) { return f.path == file.path; })) {
          files.push_back(std::move(file));
        }
      }
    }
    files.push_back({"manifest.json", JsonBytes(manifest), ""});
    files.push_back({"repositories", JsonBytes(repositories), ""});
  } else {
    files = OciFiles(images, built, options, kind == ImageKind::kDockerArchiveOci, true);
  }
  WriteContainer(files, kind, out, options);
}

void WriteImage(const TestImage& image, ImageKind kind, const fs::path& out, const WriteOptions& options) {
  WriteMultiPlatform({image}, kind, out, options);
}

}  // namespace imagelint::testing
