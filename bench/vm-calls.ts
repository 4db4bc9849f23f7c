/**
 * What the SDK's calls into a workflow's V8 context cost (docs/performance-history.md, "The sixth round").
 * Preload it into a bench; every thread but the main one (the SDK's workflow thread) counts its
 * `vm.Script#runInContext` calls, how many carried a `timeout` (the SDK's isolateExecutionTimeout, its
 * deadlock detector, for which Node starts and joins a watchdog thread per call), and the time spent in
 * them, printed every second (the SDK ends its thread without an exit event, so the last line is at most
 * a second short):
 *
 *   node -r ./test/harness/ts-register.js -r ./bench/vm-calls.ts bench/batch.ts 1000 50
 *
 * PAYRUN_BENCH_VM_NO_TIMEOUT=1 drops the option, to price the watchdog. An experiment only: without it
 * a workflow stuck in a loop would hold the workflow thread forever, which is why payrun keeps it.
 * `node -r ./test/harness/ts-register.js bench/vm-calls.ts` alone times 20 000 bare calls with and without.
 */
import vm from 'node:vm';
import { isMainThread, threadId } from 'node:worker_threads';

const dropTimeout = process.env.PAYRUN_BENCH_VM_NO_TIMEOUT === '1';

function countCalls(): void {
  const original = vm.Script.prototype.runInContext;
  let calls = 0;
  let withTimeout = 0;
  let nanos = 0n;
  vm.Script.prototype.runInContext = function (
    this: vm.Script,
    context: vm.Context,
    options?: vm.RunningScriptOptions,
  ) {
    const started = process.hrtime.bigint();
    if (options?.timeout !== undefined) withTimeout++;
    try {
      return original.call(
        this,
        context,
        dropTimeout && options ? { ...options, timeout: undefined } : options,
      );
    } finally {
      calls++;
      nanos += process.hrtime.bigint() - started;
    }
  };
  const report = () =>
    process.stderr.write(
      `vm-calls thread ${threadId}: ${calls} calls, ${withTimeout} with a timeout${dropTimeout ? ' (dropped)' : ''}, ${Number(nanos / 1_000_000n)} ms inside\n`,
    );
  setInterval(report, 1_000).unref();
}

/** Bare calls into a context: the watchdog's own price, without any workflow. */
function timeBareCalls(): void {
  const context = vm.createContext({});
  const script = new vm.Script('1');
  for (const timeout of [undefined, 5_000, undefined, 5_000]) {
    const n = 20_000;
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (let i = 0; i < n; i++) script.runInContext(context, timeout ? { timeout } : {});
    const used = process.cpuUsage(cpu);
    const wallUs = Number(process.hrtime.bigint() - started) / 1000 / n;
    process.stdout.write(
      `timeout ${timeout ?? 'none'}: ${wallUs.toFixed(1)} µs wall, ${((used.user + used.system) / n).toFixed(1)} µs CPU a call\n`,
    );
  }
}

if (require.main === module) timeBareCalls();
else if (!isMainThread) countCalls();
