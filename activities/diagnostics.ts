import { hostname } from 'node:os';
import { Context } from '@temporalio/activity';

export interface WorkerDescription {
  hostname: string;
  pid: number;
  nodeVersion: string;
  taskQueue: string;
  payrunVersion: string;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { version } = require('../package.json') as { version: string };

export async function describeWorker(): Promise<WorkerDescription> {
  return {
    hostname: hostname(),
    pid: process.pid,
    nodeVersion: process.version,
    taskQueue: Context.current().info.taskQueue,
    payrunVersion: version,
  };
}
