// binaries[] (ELF files with device code, a CUDA library in DT_NEEDED, CUDA
// libraries themselves, static-cudart markers, or problems) and
// cuda.static_runtimes (docs/cuda-facts.md, "Static cudart heuristic").
#include <algorithm>
#include <map>
#include <unordered_map>

#include "common/text.h"
#include "cuda/facts_builder.h"
#include "cuda/reachability.h"
#include "cuda/scan_text.h"

namespace imagelint::cuda::detail {
namespace {

using nlohmann::json;

// A CUDA library of runtime-libraries.yaml by file name or SONAME
// ("libcublasLt.so.12", "libcudart-9335f6a2.so.12").
bool IsCudaLibrary(const std::string& name, const Knowledge& knowledge) {
  auto parsed = ParseSharedObjectName(name);
  if (!parsed) return false;
  const json* row = knowledge.FindRuntimeLibrary(parsed->prefix);
  if (row == nullptr && parsed->hashed) row = knowledge.FindRuntimeLibrary(parsed->stem);
  return row != nullptr && row->value("cuda_library", false);
}

bool Contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// The fatbin/cubin/ptx parts of the ELF analyzer's result, as facts types.
// They have the facts' shape already; a part that does not read (a damaged
// cache entry) becomes a problem of the binary instead of a guess.
void AddDeviceCode(const json& elf, facts::Binary& row) {
  auto problem = [&](const Error& error) {
    if (!row.problems) row.problems.emplace();
    row.problems->push_back({0, "analysis result unreadable: " + error.message});
  };
  row.sass = Strings(elf, "sass");
  if (elf.contains("ptx")) {
    auto ptx = facts::ReadPtxList(elf["ptx"], "ptx");
    if (ptx.ok()) row.ptx = std::move(*ptx);
    else problem(ptx.error());
  }
  if (!row.ptx) row.ptx = std::vector<facts::Ptx>{};
  if (elf.contains("fatbin")) {
    auto fatbin = facts::ReadFatbin(elf["fatbin"], "fatbin");
    if (fatbin.ok()) {
      row.toolkits = fatbin->toolkits;
      row.fatbin = std::move(*fatbin);
    } else {
      problem(fatbin.error());
    }
  }
  if (elf.contains("cubin")) {
    auto cubin = facts::ReadCubin(elf["cubin"], "cubin");
    if (cubin.ok()) row.cubin = std::move(*cubin);
    else problem(cubin.error());
  }
}

// Config strings ("Entrypoint", "Cmd") of the image config's inner object.
std::vector<std::string> ConfigWords(const json& config, const char* key) {
  const json& inner = config.is_object() && config.contains("config") && config["config"].is_object()
                          ? config["config"]
                          : config;
  return Strings(inner, key);
}

// Every ELF object of the image as a reachability node; standalone modules
// (fatbin files, cubins) are loaded by path, not by the loader, and stay out.
std::vector<Reach> ImageReachability(const ImageFiles& files, const facts::Loader& loader,
                                     std::map<std::string, size_t>& index, const Knowledge& knowledge) {
  ReachInput in;
  for (const CudaFile& file : files.All()) {
    if (file.elf == nullptr || (file.type != EntryType::kRegular && file.type != EntryType::kHardlink)) continue;
    const json& elf = *file.elf;
    if (StringField(elf, "format") != "elf" || StringField(elf, "machine") == "cuda") continue;
    ReachNode node;
    node.path = file.path;
    node.soname = StringField(elf, "soname");
    node.executable = StringField(elf, "type") == "exec" || elf.contains("interp");
    node.needed = Strings(elf, "needed");
    node.rpath = Strings(elf, "rpath");
    node.runpath = Strings(elf, "runpath");
    index[file.path] = in.nodes.size();
    in.nodes.push_back(std::move(node));
  }
  auto path = files.Env().find("PATH");
  for (const std::string& dir : SplitOn(path != files.Env().end() ? path->second : std::string(kDefaultExecPath), ':'))
    if (!dir.empty()) in.path_dirs.push_back(dir);
  for (const char* key : {"Entrypoint", "Cmd"})
    if (auto words = ConfigWords(files.Config(), key); !words.empty()) in.programs.push_back(words.front());
  const json& config = files.Config();
  const json& inner = config.is_object() && config.contains("config") ? config["config"] : config;
  in.working_dir = StringField(inner, "WorkingDir");
  in.ld_library_path = loader.ld_library_path.value_or(std::vector<std::string>{});
  for (const facts::LdSoConfEntry& entry : loader.ld_so_conf.value_or(std::vector<facts::LdSoConfEntry>{}))
    in.ld_so_conf_dirs.push_back(entry.dir);
  in.default_dirs = knowledge.LoaderDefaultDirectories();
  // Memoised: every reachable object asks for libc & co. in the same directories.
  std::unordered_map<std::string, std::string> dirs;
  std::unordered_map<std::string, std::optional<size_t>> found;
  in.canonical_dir = [&](const std::string& dir) {
    auto [it, fresh] = dirs.try_emplace(dir);
    if (!fresh) return it->second;
    std::string clean = dir;
    while (StartsWith(clean, "/")) clean.erase(0, 1);
    while (EndsWith(clean, "/")) clean.pop_back();
    it->second = clean.empty() ? clean : files.Resolve(clean).value_or(clean);
    return it->second;
  };
  in.lookup = [&](const std::string& dir, const std::string& name) -> std::optional<size_t> {
    std::string candidate = dir.empty() ? name : dir + "/" + name;
    auto [memo, fresh] = found.try_emplace(candidate);
    if (!fresh) return memo->second;
    auto resolved = files.Resolve(candidate);
    auto it = index.find(resolved.value_or(candidate));
    if (it != index.end()) memo->second = it->second;
    return memo->second;
  };
  return ComputeReachability(in, knowledge);
}

}  // namespace

BinaryFacts BuildBinaries(const ImageFiles& files, const facts::Loader& loader, const Knowledge& knowledge) {
  BinaryFacts out;
  std::map<std::string, size_t> reach_index;
  std::vector<Reach> reach = ImageReachability(files, loader, reach_index, knowledge);
  for (const CudaFile& file : files.All()) {
    if (file.elf == nullptr) continue;
    if (file.type != EntryType::kRegular && file.type != EntryType::kHardlink) continue;
    const json& elf = *file.elf;
    std::vector<std::string> needed = Strings(elf, "needed");
    bool cuda_needed = false;
    std::string cudart_needed;
    for (const std::string& name : needed) {
      if (IsCudaLibrary(name, knowledge)) cuda_needed = true;
      if (StartsWith(name, "libcudart")) cudart_needed = name;
    }
    std::string soname = StringField(elf, "soname");
    std::string base = BaseName(file.path);
    bool has_device_code = elf.contains("fatbin") || elf.contains("cubin");
    bool is_cuda_lib = IsCudaLibrary(soname, knowledge) || IsCudaLibrary(base, knowledge);
    bool problems = elf.contains("problems");
    std::vector<std::string> markers = Strings(elf, "cudart_markers");
    bool is_cudart = StartsWith(soname, "libcudart") || StartsWith(base, "libcudart");
    // Static cudart: the runtime's own error-name table inside a file that is not
    // libcudart and does not load one, plus device code or the driver lookup.
    bool static_cudart = Contains(markers, "cudaErrorInsufficientDriver") && !is_cudart && cudart_needed.empty() &&
                         (has_device_code || Contains(markers, "cuGetProcAddress"));
    if (!(has_device_code || cuda_needed || is_cuda_lib || problems || static_cudart)) continue;
    // Driver libraries (driver-files.yaml; libcuda carries ~200 internal cubins)
    // are reported in cuda.drivers / cuda.driver_libraries: their kernels are
    // not the application's.
    if (!problems && knowledge.IsDriverFile(base)) continue;

    facts::Binary row;
    row.provenance = files.Where(file);
    row.path = Shown(file.path);
    if (elf.contains("machine")) row.machine = StringField(elf, "machine");
    if (elf.contains("class") && elf["class"].is_number_integer()) row.elf_class = elf["class"].get<int64_t>();
    if (elf.contains("type")) row.type = StringField(elf, "type");
    row.soname = soname;
    row.needed = needed;
    if (elf.contains("runpath")) row.runpath = Strings(elf, "runpath");
    if (elf.contains("rpath")) row.rpath = Strings(elf, "rpath");
    // Executables only: a shared library's lookups also depend on whoever loads it.
    if (!cudart_needed.empty() && elf.contains("interp"))
      row.cudart_lookup = LookupForExecutable(files, loader, file, cudart_needed, knowledge);
    AddDeviceCode(elf, row);
    if (auto it = reach_index.find(file.path); it != reach_index.end()) {
      row.reachable = reach[it->second].reachable;
      row.reachable_via = reach[it->second].via;
      if (!*row.reachable) row.unreachable_reason = kUnreachable;
    } else {
      // A module file: CUDA code loads it by path (cuModuleLoad), which no
      // loader search decides; it is taken as loadable.
      row.reachable = true;
      row.reachable_via = std::vector<std::string>{"a module file, loaded by path"};
    }
    row.static_cudart = static_cudart;
    if (static_cudart) {
      facts::StaticRuntime entry;
      entry.provenance = files.Where(file);
      entry.path = Shown(file.path);
      entry.markers = markers;
      entry.toolkits = row.toolkits.value_or(std::vector<std::string>{});
      out.static_runtimes.push_back(std::move(entry));
    }
    if (problems) {
      auto read = facts::ReadProblems(elf["problems"], "problems");
      if (read.ok()) {
        if (!row.problems) row.problems.emplace();
        row.problems->insert(row.problems->begin(), read->begin(), read->end());
      }
    }
    out.binaries.push_back(std::move(row));
  }
  return out;
}

}  // namespace imagelint::cuda::detail
