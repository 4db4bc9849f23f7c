#!/usr/bin/env node
// Turns the Kubernetes OpenAPI v2 document (api/openapi-spec/swagger.json of the k8s.io/kubernetes Go module)
// into the JSON schemas kubeconform reads from a folder: `_definitions.json` with every definition, and one
// `<kind>-<group>-<version>.json` per kind (kubeconform's file names) that points into it. Strict like
// kubeconform's own `-strict` schemas: an object with known properties refuses any other (a misspelt
// `readinesProbe` fails instead of being dropped by the API server). Run by scripts/ensure-kube-schemas.sh.
//
//   node scripts/lib/kube-schemas.js SWAGGER_JSON OUT_DIR
'use strict';
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const [swaggerPath, outDir] = process.argv.slice(2);
if (!swaggerPath || !outDir) {
  process.stderr.write('usage: kube-schemas.js SWAGGER_JSON OUT_DIR\n');
  process.exit(2);
}
const { definitions } = JSON.parse(readFileSync(swaggerPath, 'utf8'));

// What the API server accepts but the document spells too narrowly: an int-or-string (a port name or
// number), a quantity written as a YAML number (`cpu: 1`).
const WIDENED = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': [{ type: 'string' }, { type: 'integer' }],
  'io.k8s.apimachinery.pkg.api.resource.Quantity': [{ type: 'string' }, { type: 'number' }],
};

function strict(node) {
  if (Array.isArray(node)) return node.map(strict);
  if (!node || typeof node !== 'object') return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) out[key] = strict(value);
  if (out.format === 'int-or-string') {
    delete out.type;
    delete out.format;
    out.oneOf = WIDENED['io.k8s.apimachinery.pkg.util.intstr.IntOrString'];
  }
  const open = out['x-kubernetes-preserve-unknown-fields'] === true || 'additionalProperties' in out;
  if (out.properties && !open) out.additionalProperties = false;
  return out;
}

const converted = {};
for (const [name, schema] of Object.entries(definitions)) {
  const widened = WIDENED[name];
  converted[name] = widened ? { description: schema.description, oneOf: widened } : strict(schema);
}

const tmp = `${outDir}.tmp-${process.pid}`;
mkdirSync(tmp, { recursive: true });
writeFileSync(join(tmp, '_definitions.json'), JSON.stringify({ definitions: converted }));
let kinds = 0;
for (const [name, schema] of Object.entries(definitions)) {
  for (const gvk of schema['x-kubernetes-group-version-kind'] ?? []) {
    // kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}: the group's first label, e.g. networking.k8s.io → networking.
    const group = gvk.group ? `-${gvk.group.split('.')[0]}` : '';
    const file = `${gvk.kind}${group}-${gvk.version}.json`.toLowerCase();
    // The kind and apiVersion pinned, so a Deployment's file refuses an object of another kind.
    const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
    writeFileSync(
      join(tmp, file),
      JSON.stringify({
        allOf: [{ $ref: `_definitions.json#/definitions/${name}` }],
        properties: { kind: { enum: [gvk.kind] }, apiVersion: { enum: [apiVersion] } },
        required: ['kind', 'apiVersion'],
      }),
    );
    kinds += 1;
  }
}
// A finished folder or none: a run stopped midway leaves only its .tmp folder, which the next run replaces.
renameSync(tmp, outDir);
process.stderr.write(`kube-schemas: ${kinds} kinds written to ${outDir}\n`);
