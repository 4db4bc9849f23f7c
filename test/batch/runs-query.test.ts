import { runsOfWorkflowIdQuery } from '../../src/batch/services/lookup';

describe('the visibility query for every run of a workflow id', () => {
  it('names the namespace division itself, so SQLite looks the workflow id up instead of reading every workflow', () => {
    // Without this clause Temporal adds `TemporalNamespaceDivision IS NULL`, which the dev server's
    // SQLite serves from the division index: 320–350 ms a query on 100 000 workflows against 2–6 ms
    // (src/batch/services/lookup.ts, bench/visibility-scan.ts).
    expect(runsOfWorkflowIdQuery('payout-r1')).toBe(
      "WorkflowId = 'payout-r1' AND (TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision = '')",
    );
  });

  it('keeps a quote or a backslash in the id inside the string', () => {
    expect(runsOfWorkflowIdQuery("payout-a'b\\c")).toBe(
      "WorkflowId = 'payout-a\\'b\\\\c' AND (TemporalNamespaceDivision IS NULL OR TemporalNamespaceDivision = '')",
    );
    expect(runsOfWorkflowIdQuery("x' OR WorkflowId != '")).toMatch(
      /^WorkflowId = 'x\\' OR WorkflowId != \\'' AND/,
    );
  });
});
