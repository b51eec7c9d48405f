// Fails when src/generated/openapi.ts differs from what `npm run generate` makes of the
// committed schema/openapi.json (the same drift check the service has for schema/).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const schema = new URL("../../../schema/openapi.json", import.meta.url).pathname;
const committed = new URL("../src/generated/openapi.ts", import.meta.url).pathname;
if (!existsSync(schema)) {
  console.log(`skipped: ${schema} is not there (run \`manhattan export-schema\`)`);
  process.exit(0);
}
const fresh = join(mkdtempSync(join(tmpdir(), "manhattan-ts-")), "openapi.ts");
// The same options as `npm run generate`: a field with a default is optional (a request may
// leave it out), not "always present" as openapi-typescript assumes by default.
execFileSync("npx", ["openapi-typescript", schema, "--default-non-nullable", "false", "--output", fresh], { stdio: "inherit" });
if (readFileSync(fresh, "utf8") !== readFileSync(committed, "utf8")) {
  console.error("src/generated/openapi.ts is out of date: run `npm run generate` and commit it");
  process.exit(1);
}
console.log("generated types match schema/openapi.json");
