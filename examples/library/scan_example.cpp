// Embedding imagelint (docs/library.md): a CI step or admission check that
// asks "will these images run on our fleet?" and gets the verdicts back as
// data. Built and run by the test suite (tests/library).
//
//   scan_example DATA_DIR FLEET IMAGE...
//
// DATA_DIR holds rules/, rules/knowledge/ and docs/ (a checkout, or an
// installed share/imagelint). Prints one line per image and pool:
//   <image> <pool> pass|warn|fail <predicted CUDA error or ->
// and exits like the command line: 0 pass, 1 an error finding, 2 could not scan.
#include <cstdio>
#include <string>

#include "imagelint/pipeline.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DATA_DIR FLEET IMAGE...\n", argv[0]);
    return 2;
  }
  // Everything host-specific is passed in: the library reads no environment.
  imagelint::Context context = imagelint::Context::ForDataDirectory(argv[1]);
  context.warn = [](const std::string& message) { std::fprintf(stderr, "warning: %s\n", message.c_str()); };

  imagelint::ScanRequest request;
  request.fleet_file = argv[2];
  request.inputs.assign(argv + 3, argv + argc);
  request.fail_on = imagelint::rules::Severity::kError;  // the default, spelled out

  auto result = imagelint::Scan(request, context);
  if (!result.ok()) {
    std::fprintf(stderr, "cannot scan: %s\n", result.error().ToString().c_str());
    return 2;
  }
  for (const auto& image : result->report.images) {
    for (const auto& verdict : image.verdicts) {
      std::string error = verdict.predicted_error ? verdict.predicted_error->name : "-";
      std::printf("%s %s %s %s\n", image.ref.c_str(), verdict.pool.c_str(),
                  std::string(imagelint::analysis::OutcomeName(verdict.status)).c_str(), error.c_str());
    }
  }
  return result->exit_code;
}
