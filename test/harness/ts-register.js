// Lets a child process run payrun's TypeScript sources directly (crash tests spawn real worker
// processes), with the same SWC transform jest uses; no build step in between.
const { transformSync } = require('@swc/core');
const fs = require('node:fs');

require.extensions['.ts'] = function compileTs(module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), {
    filename,
    sourceMaps: 'inline',
    module: { type: 'commonjs' },
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
  });
  module._compile(code, filename);
};
