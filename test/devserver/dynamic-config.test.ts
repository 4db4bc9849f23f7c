import { dynamicConfigArgs, TEMPORAL_DYNAMIC_CONFIG } from '../../src/devserver/dynamic-config';

describe('the dev server’s dynamic config', () => {
  it('passes each value as JSON after --dynamic-config-value, as `temporal server start-dev` reads it', () => {
    expect(dynamicConfigArgs({ 'a.number': 200, 'a.string': 'x', 'a.flag': false })).toEqual([
      '--dynamic-config-value',
      'a.number=200',
      '--dynamic-config-value',
      'a.string="x"',
      '--dynamic-config-value',
      'a.flag=false',
    ]);
  });

  it('hands tasks to matching without the default 50 ms wait (docs/performance-history.md, the fifth round)', () => {
    expect(TEMPORAL_DYNAMIC_CONFIG['history.transferProcessorMaxPollRPS']).toBeGreaterThan(20);
  });
});
