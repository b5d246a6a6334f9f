// `imagelint knowledge show | update [REF] | pack DIR [-o FILE] | push FILE REF`:
// the knowledge bundle in use, and bundles published as OCI artifacts
// (docs/knowledge.md "Bundle").
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "cli/options.h"
#include "common/text.h"
#include "imagelint/config.h"
#include "imagelint/knowledge_update.h"
#include "imagelint/report_document.h"

namespace imagelint::cli {
namespace {

struct KnowledgeArgs {
  std::string action = "show";
  std::vector<std::string> operands;
  std::string output;
  std::string digest;
  std::string knowledge;
  std::string cache_dir;
  std::string format = "text";
  std::vector<std::string> insecure_registries;
  std::string ca_file;
};

registry::RegistryOptions RegistryOptionsFor(const KnowledgeArgs& args, const Context& context) {
  registry::RegistryOptions options;
  options.credential_stores = context.credential_stores;
  options.insecure_registries = args.insecure_registries;
  options.ca_file = args.ca_file;
  return options;
}

std::string Age(const KnowledgeBundle& bundle, const std::string& today) {
  auto days = KnowledgeAgeDays(bundle.as_of, today);
  if (!days) return "";
  std::string text = std::to_string(*days) + (*days == 1 ? " day" : " days") + " old";
  if (*days > kKnowledgeStaleDays) text += ", older than " + std::to_string(kKnowledgeStaleDays) + " days: run `imagelint knowledge update`";
  return text;
}

int Show(const KnowledgeArgs& args, const Context& context) {
  auto knowledge = Knowledge::Load(context.knowledge_dir, context.cache_dir);
  if (!knowledge.ok()) return ReportToolError(knowledge.error());
  const std::string today = context.today.empty() ? Today() : context.today;
  auto identity = BundleOf(*knowledge);
  if (!identity.ok()) return ReportToolError(identity.error());
  const KnowledgeBundle& bundle = *identity;
  const auto stored = StoredKnowledge(KnowledgeBundlesDirectory(context.cache_dir));
  if (args.format == "json") {
    nlohmann::json out = analysis::WriteKnowledgeStamp(KnowledgeStampOf(bundle, today));
    out["directory"] = context.knowledge_dir.string();
    out["tables"] = KnowledgeTableSummary(*knowledge);
    nlohmann::json cached = nlohmann::json::array();
    for (const auto& one : stored)
      cached.push_back({{"revision", one.revision}, {"date", one.as_of}, {"directory", one.directory.string()}});
    out["stored"] = cached;
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "knowledge " << bundle.revision << "\n"
            << "as of     " << bundle.as_of << " (" << Age(bundle, today) << ")\n"
            << "schema    " << bundle.schema_version << "\n"
            << "digest    " << bundle.digest << "\n"
            << "directory " << context.knowledge_dir.string() << "\n";
  size_t rows = 0;
  for (const auto& info : KnowledgeTables()) rows += knowledge->Table(info.kind).size();
  std::cout << "tables    " << KnowledgeTables().size() << " (" << rows << " rows)\n";
  for (const auto& one : stored)
    std::cout << "stored    " << one.revision << " (as of " << one.as_of << ") " << one.directory.string() << "\n";
  return kExitOk;
}

int Update(const KnowledgeArgs& args, const Context& context) {
  if (args.operands.size() > 1) return ReportToolError(MakeError("knowledge update", "takes at most one REF"));
  auto updated = UpdateKnowledge(args.operands.empty() ? "" : args.operands[0], args.digest,
                                 RegistryOptionsFor(args, context), context);
  if (!updated.ok()) {
    std::cerr << "imagelint: knowledge update refused; the bundle in use stays "
              << context.knowledge_dir.string() << "\n";
    return ReportToolError(updated.error());
  }
  std::cout << "knowledge " << updated->bundle.revision << " (as of " << updated->bundle.as_of << ", "
            << updated->bundle.digest << ") from " << updated->reference << "@" << updated->manifest_digest << "\n"
            << "stored in " << updated->bundle.directory.string() << "\n";
  if (!updated->in_use)
    std::cout << "not in use: a newer bundle is stored or built in (`imagelint knowledge show`)\n";
  return kExitOk;
}

int Pack(const KnowledgeArgs& args, const Context& context) {
  if (args.operands.size() != 1) return ReportToolError(MakeError("knowledge pack", "takes one DIR"));
  std::string tar;
  auto bundle = PackKnowledge(args.operands[0], &tar);
  if (!bundle.ok()) return ReportToolError(bundle.error());
  const std::string output = args.output.empty() ? "imagelint-knowledge-" + bundle->revision + ".tar" : args.output;
  if (output == "-") {
    std::cout.write(tar.data(), static_cast<std::streamsize>(tar.size()));
    return std::cout.flush() ? kExitOk : ReportToolError(MakeError("-", "cannot write"));
  }
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  out.write(tar.data(), static_cast<std::streamsize>(tar.size()));
  if (!out.flush()) return ReportToolError(MakeError(output, "cannot write"));
  std::cerr << "knowledge " << bundle->revision << " (as of " << bundle->as_of << ", " << bundle->digest << ") -> "
            << output << "\n";
  (void)context;
  return kExitOk;
}

int Push(const KnowledgeArgs& args, const Context& context) {
  if (args.operands.size() != 2) return ReportToolError(MakeError("knowledge push", "takes FILE and REF"));
  auto pushed = PushKnowledge(args.operands[0], args.operands[1], RegistryOptionsFor(args, context));
  if (!pushed.ok()) return ReportToolError(pushed.error());
  std::cout << args.operands[1] << "@" << pushed->manifest_digest << "\n";
  return kExitOk;
}

RunFunction SetupKnowledge(CLI::App& app) {
  auto args = std::make_shared<KnowledgeArgs>();
  app.add_option("ACTION", args->action,
                 "show (default): the bundle in use; update [REF]: pull a bundle; pack DIR: make one; push FILE REF")
      ->check(CLI::IsMember({"show", "update", "pack", "push"}));
  app.add_option("ARGS", args->operands, "update: REF; pack: DIR; push: FILE REF");
  app.add_option("-o,--output", args->output, "pack: the file to write (default imagelint-knowledge-REVISION.tar)")
      ->type_name("FILE");
  app.add_option("--digest", args->digest, "update: refuse the bundle unless its manifest has this digest")
      ->type_name("sha256:HEX");
  app.add_option("--knowledge", args->knowledge, "show: this bundle (a directory or a file from `knowledge pack`)")
      ->type_name("DIR|FILE");
  AddCacheDirOption(app, args->cache_dir, "where updated bundles are kept");
  app.add_option("-f,--format", args->format, "show: text (default) or json")->check(CLI::IsMember({"text", "json"}));
  AddRegistryTlsOptions(app, args->insecure_registries, args->ca_file);
  return [args](const Environment& environment) -> int {
    auto context = KnowledgeContextFor(environment, args->cache_dir, args->knowledge);
    if (!context.ok()) return ReportToolError(context.error());
    if (args->action == "show") {
      if (!args->operands.empty()) return ReportToolError(MakeError("knowledge show", "takes no argument"));
      return Show(*args, *context);
    }
    if (args->action == "update") return Update(*args, *context);
    if (args->action == "pack") return Pack(*args, *context);
    return Push(*args, *context);
  };
}

CommandRegistration knowledge_registration({"knowledge",
                                  "the knowledge bundle: show it, update it from a registry, pack and push one",
                                  SetupKnowledge, 85});

}  // namespace
}  // namespace imagelint::cli
