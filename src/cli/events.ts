import { InvalidArgumentError, type Command } from 'commander';
import { ConfigError, loadEventEndpoints } from '../config';
import { loadBatchPaths } from '../batch/services/config';
import { replayEvents } from '../events/replay';
import { moscowTime, t } from '../i18n';
import { withClient } from './connect';

/** A wrong --since is wrong usage (exit 2), said in the person's language. */
function since(raw: string): Date {
  const at = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(at.getTime()))
    throw new InvalidArgumentError(t('events.replay.badSince'));
  return at;
}

export function registerEvents(program: Command): void {
  const events = program
    .command('events')
    .description('signed status events for the company’s systems (docs/events.md)');
  events
    .command('replay')
    .description('send again every event since TIME to one endpoint or all, under their own ids')
    .requiredOption('--since <time>', 'ISO 8601, e.g. 2026-11-26T10:00:00Z', since)
    .option('--endpoint <name>', 'one endpoint of PAYRUN_EVENT_ENDPOINTS (default: all)')
    .action(async (flags: { since: Date; endpoint?: string }) => {
      const all = loadEventEndpoints();
      if (all.length === 0) throw new ConfigError([t('events.replay.noEndpoints')]);
      const chosen = flags.endpoint ? all.filter((e) => e.name === flags.endpoint) : all;
      if (chosen.length === 0)
        throw new ConfigError([
          t('events.replay.unknownEndpoint', {
            endpoint: flags.endpoint!,
            known: all.map((e) => e.name).join(', '),
          }),
        ]);
      await withClient(async (client, taskQueue) => {
        const done = await replayEvents(client, taskQueue, loadBatchPaths().dataDir, chosen, flags.since);
        for (const d of done)
          console.log(
            t('events.replay.done', {
              endpoint: d.endpoint,
              count: d.reopened,
              // Typed as ISO 8601 (any zone), said back as accounting reads times: Moscow time.
              since: moscowTime(flags.since.toISOString()),
            }),
          );
      });
    });
}
