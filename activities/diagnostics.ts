import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Context } from '@temporalio/activity';
import { PROJECT_ROOT } from '../src/paths';

export interface WorkerDescription {
  hostname: string;
  pid: number;
  nodeVersion: string;
  taskQueue: string;
  payrunVersion: string;
}

const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  version: string;
};

export async function describeWorker(): Promise<WorkerDescription> {
  return {
    hostname: hostname(),
    pid: process.pid,
    nodeVersion: process.version,
    taskQueue: Context.current().info.taskQueue,
    payrunVersion: version,
  };
}
