#!/usr/bin/env node
// Compose's healthchecks for payrun's containers (docker-compose.yml runs it with the image's node; nothing
// else in the slim image can make an HTTP request). Exit 0 healthy, 1 not; one line on stderr says why.
//
//   node deploy/healthcheck.js ok URL              a 2xx answer from URL: the ingress's /healthz, the worker's
//                                                  /ready (it polls Temporal) or /live (the process answers; for
//                                                  an orchestrator that restarts). Never /metrics: a scrape is
//                                                  not a health check (docs/operations.md, "Compose")
//   node deploy/healthcheck.js answers URL         any HTTP answer (the codec server answers 401 without a token)
//   node deploy/healthcheck.js inbox DIR SECONDS   no file waits in DIR longer than SECONDS: the watcher picks
//                                                  a file up within a few polls of it settling, so an older one
//                                                  means the watcher is stuck or cannot submit
'use strict';
/* global fetch, AbortSignal */ // Node's own, since 18
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const [mode, target, limit] = process.argv.slice(2);
const fail = (why) => {
  process.stderr.write(`unhealthy: ${why}\n`);
  process.exit(1);
};

function http(accept) {
  fetch(target, { signal: AbortSignal.timeout(4000) }).then(
    (res) => (accept(res.status) ? process.exit(0) : fail(`${target} answered ${res.status}`)),
    (err) => fail(`${target}: ${err.cause?.code ?? err.message}`),
  );
}

function inbox() {
  const maxAgeMs = Number(limit) * 1000;
  if (!target || !(maxAgeMs > 0)) fail('usage: inbox DIR SECONDS');
  let names;
  try {
    names = readdirSync(target);
  } catch (err) {
    fail(`cannot read ${target}: ${err.code ?? err.message}`);
  }
  const now = Date.now();
  for (const name of names) {
    if (name.startsWith('.')) continue; // .gitkeep and files still being copied under a dot name
    let st;
    try {
      st = statSync(join(target, name));
    } catch {
      continue; // picked up between the listing and the stat
    }
    if (st.isFile() && now - st.mtimeMs > maxAgeMs)
      fail(`${name} has waited in ${target} for ${Math.round((now - st.mtimeMs) / 1000)} s`);
  }
  process.exit(0);
}

if (mode === 'ok') http((s) => s >= 200 && s < 300);
else if (mode === 'answers') http(() => true);
else if (mode === 'inbox') inbox();
else fail('usage: healthcheck.js ok|answers URL, or inbox DIR SECONDS');
