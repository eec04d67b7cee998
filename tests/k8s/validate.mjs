// SPDX-License-Identifier: GPL-2.0-only
// Offline schema validation of Kubernetes manifests (tests/k8s/run).
// Built-in kinds: the kubernetes-models package (the Kubernetes OpenAPI
// schemas compiled with ajv: types, required fields, enums, formats).
// Custom resources: JSON schemas in tests/k8s/schemas/<group>_<version>_<Kind>.json.
// Unknown fields are rejected as the API server's strict field validation
// does (kubectl apply --validate=strict): a misspelt key, which the
// schemas alone let through, would silently drop a setting (privileged,
// a probe, a mount). The known fields of each built-in type come from the
// same package's type declarations (*.d.ts: one interface per type).
// Usage: node validate.mjs FILE.yaml...   One "ok"/"FAIL" line per object,
// and "N passed, N failed" last.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import yaml from "js-yaml";
import Ajv from "ajv";

const here = path.dirname(fileURLToPath(import.meta.url));
let pass = 0, fail = 0;

// type name (IIoK8sApiAppsV1DaemonSet) -> Map(field -> declared type)
const types = new Map();
function indexTypes(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== "_schemas") indexTypes(p); continue; }
    if (!e.name.endsWith(".d.ts")) continue;
    const text = fs.readFileSync(p, "utf8");
    const alias = /export type \{ (I\w+) as (I\w+),/.exec(text);
    const iface = alias && new RegExp(`export interface ${alias[1]}(?: extends \\w+)? \\{([\\s\\S]*?)\\n\\}`).exec(text);
    if (!iface) continue;
    const fields = new Map();
    // one field a line; a map's type ("{ [key: string]: ... }") spans lines
    for (const m of iface[1].matchAll(/^ {4}"([^"]+)"\??: (.*?);?$/gm)) fields.set(m[1], m[2]);
    types.set(alias[2], fields);
  }
}
for (const pkg of ["kubernetes-models", "@kubernetes-models"])
  indexTypes(path.join(here, "node_modules", pkg));

// Paths in @obj (of type @type) that the type does not declare.
function unknownFields(obj, type, at, out) {
  const fields = types.get(type);
  if (!fields || obj === null || typeof obj !== "object") return out;
  for (const [k, v] of Object.entries(obj)) {
    const t = fields.get(k);
    if (t === undefined) { out.push(`${at}.${k}`); continue; }
    const arr = /^Array<(\w+)>$/.exec(t);
    if (arr && Array.isArray(v)) v.forEach((x, i) => unknownFields(x, arr[1], `${at}.${k}[${i}]`, out));
    else if (/^\w+$/.test(t)) unknownFields(v, t, `${at}.${k}`, out);
  }
  return out;
}
function typeOf(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["core", apiVersion];
  const g = group.split(".")[0].replace(/^./, (c) => c.toUpperCase());
  const v = version.replace(/^./, (c) => c.toUpperCase());
  return `IIoK8sApi${g}${v}${kind}`;
}
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
      const type = typeOf(obj.apiVersion, obj.kind);
      if (types.has(type)) {
        const unknown = unknownFields(obj, type, "", []);
        if (unknown.length) throw new Error(`unknown field(s): ${unknown.join(", ")}`);
      }
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
