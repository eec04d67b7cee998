// SPDX-License-Identifier: GPL-2.0-only
// Offline schema validation of Kubernetes manifests (tests/k8s/run).
// Built-in kinds: the kubernetes-models package (the Kubernetes OpenAPI
// schemas compiled with ajv: types, required fields, enums, formats).
// Custom resources: JSON schemas in tests/k8s/schemas/<group>_<version>_<Kind>.json.
// Usage: node validate.mjs FILE.yaml...   One "ok"/"FAIL" line per object,
// and "N passed, N failed" last.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import yaml from "js-yaml";
import Ajv from "ajv";

const here = path.dirname(fileURLToPath(import.meta.url));
let pass = 0, fail = 0;
const ajv = new Ajv({ allErrors: true, strict: false });

async function validator(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const custom = path.join(here, "schemas", `${group}_${version}_${kind}.json`);
  if (fs.existsSync(custom)) {
    const v = ajv.compile(JSON.parse(fs.readFileSync(custom, "utf8")));
    return (obj) => { if (!v(obj)) throw new Error(ajv.errorsText(v.errors, { separator: "; " })); };
  }
  const dir = group === "" ? version : `${group}/${version}`;
  let mod;
  try {
    mod = await import(`kubernetes-models/${dir}/${kind}`);
  } catch (e) {
    throw new Error(`no schema for ${apiVersion} ${kind}`);
  }
  return (obj) => new mod[kind](obj).validate();
}

for (const file of process.argv.slice(2)) {
  const docs = yaml.loadAll(fs.readFileSync(file, "utf8")).filter((d) => d);
  for (const [i, obj] of docs.entries()) {
    const what = `${path.relative(process.cwd(), file)}[${i}] ${obj.kind || "?"}/${obj.metadata?.name || "?"}`;
    try {
      if (!obj.apiVersion || !obj.kind) throw new Error("no apiVersion/kind");
      (await validator(obj.apiVersion, obj.kind))(obj);
      console.log(`ok   ${what}`);
      pass++;
    } catch (e) {
      console.log(`FAIL ${what}: ${e.message}`);
      fail++;
    }
  }
}
console.log(`${pass} passed, ${fail} failed`);
process.exit(fail ? 1 : 0);
