import type { PaymentSession } from '../../src/bank/types/session';
import { isAllowedSource, normalizeIp } from '../../src/ingress/address';
import { RecentIds, SessionOwners } from '../../src/ingress/recent';
import { metadataTargets, payrunMetadataOf, sessionVisibilityQuery } from '../../src/routing/targets';

const ours = (workflowId: string) => ({
  payrun: { workflow_id: workflowId, reference: workflowId.slice(7) },
});

describe('payrunMetadataOf', () => {
  it('reads payrun routing data from an object', () => {
    expect(payrunMetadataOf(ours('payout-A1'))?.workflow_id).toBe('payout-A1');
  });
  it('reads it from metadata echoed as a JSON string', () => {
    expect(payrunMetadataOf(JSON.stringify(ours('payout-A2')))?.workflow_id).toBe('payout-A2');
  });
  it('reads it when only the payrun key is a JSON string', () => {
    expect(payrunMetadataOf({ payrun: JSON.stringify(ours('payout-A3').payrun) })?.workflow_id).toBe(
      'payout-A3',
    );
  });
  it.each([
    ['absent', undefined],
    ['null', null],
    ['not JSON', '{payrun:'],
    ['a JSON string that is not an object', '"payout-A1"'],
    ['someone else’s metadata', { order: 17 }],
    ['an array', [ours('payout-A1')]],
    ['a workflow id that is not a string', { payrun: { workflow_id: 17 } }],
    ['an empty workflow id', { payrun: { workflow_id: ' ' } }],
  ])('ignores %s', (_label, metadata) => {
    expect(payrunMetadataOf(metadata)).toBeUndefined();
  });
});

describe('metadataTargets', () => {
  it('collects session, payout, payment and refund metadata once each, in order', () => {
    const session = {
      id: 'ps_1',
      status: 'in_progress',
      metadata: ours('batch-B1'),
      payments: [
        { id: 'po_1', status: 'pending', metadata: JSON.stringify(ours('payout-P1')) },
        { id: 'po_2', status: 'pending', metadata: ours('payout-P1') },
        { id: 'po_3', status: 'pending' },
      ],
      acquiring_payments: [
        {
          id: 'pm_1',
          status: 'succeeded',
          metadata: { unrelated: true },
          refunds: [{ id: 'rf_1', status: 'accepted', metadata: ours('refund-R1') }],
        },
      ],
    } as PaymentSession;
    expect(metadataTargets(session)).toEqual(['batch-B1', 'payout-P1', 'refund-R1']);
  });
  it('finds nothing without a session or without payrun metadata', () => {
    expect(metadataTargets(undefined)).toEqual([]);
    expect(
      metadataTargets({ id: 'ps_2', status: 'created', metadata: 'free text' } as PaymentSession),
    ).toEqual([]);
  });
});

describe('sessionVisibilityQuery', () => {
  it('asks for running workflows with that session id', () => {
    expect(sessionVisibilityQuery('ps_42')).toBe('PayrunSessionId = "ps_42" AND ExecutionStatus = "Running"');
    expect(sessionVisibilityQuery('ps_42', 'payrun')).toBe(
      'PayrunSessionId = "ps_42" AND ExecutionStatus = "Running" AND TaskQueue = "payrun"',
    );
  });
  it('escapes quotes so a session id cannot change the query', () => {
    expect(sessionVisibilityQuery('x" OR WorkflowId = "y')).toBe(
      'PayrunSessionId = "x\\" OR WorkflowId = \\"y" AND ExecutionStatus = "Running"',
    );
  });
});

describe('source addresses', () => {
  it.each([
    ['::ffff:84.201.171.246', '84.201.171.246'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['84.252.136.174', '84.252.136.174'],
    ['::1', '::1'],
    ['::ffff:not-an-ip', '::ffff:not-an-ip'],
  ])('normalizes %s to %s', (raw, normal) => {
    expect(normalizeIp(raw)).toBe(normal);
  });
  it('allows anyone with an empty list', () => {
    expect(isAllowedSource('10.0.0.1', [])).toBe(true);
  });
  it('matches mapped IPv4 sockets against plain entries', () => {
    const allowed = ['84.201.171.246', '84.252.136.174'];
    expect(isAllowedSource('::ffff:84.252.136.174', allowed)).toBe(true);
    expect(isAllowedSource('127.0.0.1', allowed)).toBe(false);
    expect(isAllowedSource(undefined, allowed)).toBe(false);
  });
});

describe('RecentIds', () => {
  it('forgets the least recently seen id beyond its capacity', () => {
    const recent = new RecentIds(2);
    recent.add('a');
    recent.add('b');
    expect(recent.has('a')).toBe(true); // a is now the most recent
    recent.add('c');
    expect(recent.has('b')).toBe(false);
    expect(recent.has('a')).toBe(true);
    expect(recent.has('c')).toBe(true);
    expect(recent.size).toBe(2);
  });
  it('remembers nothing with capacity 0', () => {
    const recent = new RecentIds(0);
    recent.add('a');
    expect(recent.has('a')).toBe(false);
  });
});

describe('SessionOwners', () => {
  it('adds the workflows of a session’s later events to those of its earlier ones, once each', () => {
    const owners = new SessionOwners(10);
    owners.remember('ps_1', ['payout-a']);
    owners.remember('ps_1', ['payout-a', 'refund-b']);
    expect(owners.get('ps_1')).toEqual(['payout-a', 'refund-b']);
    expect(owners.get('ps_unknown')).toEqual([]);
  });
  it('forgets the session seen least recently beyond its capacity', () => {
    const owners = new SessionOwners(2);
    owners.remember('ps_1', ['payout-a']);
    owners.remember('ps_2', ['payout-b']);
    owners.remember('ps_1', ['payout-a']); // seen again: now the most recent
    owners.remember('ps_3', ['payout-c']);
    expect(owners.get('ps_2')).toEqual([]);
    expect(owners.get('ps_1')).toEqual(['payout-a']);
    expect(owners.get('ps_3')).toEqual(['payout-c']);
  });
  it('remembers nothing for an event nobody took, or with capacity 0', () => {
    const owners = new SessionOwners(2);
    owners.remember('ps_1', []);
    expect(owners.get('ps_1')).toEqual([]);
    const off = new SessionOwners(0);
    off.remember('ps_1', ['payout-a']);
    expect(off.get('ps_1')).toEqual([]);
  });
});
