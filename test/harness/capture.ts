/**
 * What the code under test writes to stderr and stdout, captured test by test (the streams are put back
 * after each): for command-line tests that call `main()` in this process and read what it said.
 */
export function captureOutput(): { stderr: string; stdout: string } {
  const said = { stderr: '', stdout: '' };
  const write = {
    stderr: process.stderr.write.bind(process.stderr),
    stdout: process.stdout.write.bind(process.stdout),
  };
  const into = (stream: 'stderr' | 'stdout') =>
    ((chunk: string | Uint8Array) => {
      said[stream] += chunk.toString();
      return true;
    }) as typeof process.stderr.write;
  beforeEach(() => {
    said.stderr = '';
    said.stdout = '';
    process.stderr.write = into('stderr');
    process.stdout.write = into('stdout');
  });
  afterEach(() => {
    process.stderr.write = write.stderr;
    process.stdout.write = write.stdout;
  });
  return said;
}
