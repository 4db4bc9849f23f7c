import { eventOutboxWorkflowId, parseEventOutboxInput } from '../../workflows/event-outbox/contract';

// Anyone who may start workflows may start an endpoint's delivery first, with its own input.
describe('the event outbox workflow input', () => {
  it('takes an endpoint and shorter retries, never a give-up under an hour', () => {
    expect(parseEventOutboxInput({ endpoint: 'erp', firstRetryMs: 100, longestRetryMs: 1_000 }).ok).toBe(
      true,
    );
    expect(parseEventOutboxInput({ endpoint: 'erp', giveUpAfterMs: 3_600_000 }).ok).toBe(true);
    expect(parseEventOutboxInput({ endpoint: 'erp', giveUpAfterMs: 1_000 }).ok).toBe(false);
    expect(parseEventOutboxInput({ endpoint: '../x' }).ok).toBe(false);
    expect(parseEventOutboxInput({ endpoint: 'erp', url: 'https://attacker.example' }).ok).toBe(false);
  });

  it('is one workflow per task queue and endpoint', () => {
    expect(eventOutboxWorkflowId('payrun', 'erp')).toBe('event-outbox-payrun-erp');
    expect(eventOutboxWorkflowId('payrun-2', 'erp')).not.toBe(eventOutboxWorkflowId('payrun', 'erp'));
  });
});
