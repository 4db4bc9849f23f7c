import { TEST_INNS, type RunningSandbox } from '../../src/sandbox';
import { LINK_REQUEST_TTL_MS } from '../../src/sandbox/links';
import { type SignedClient, startTestSandbox } from './signed-client';

// Linking a self-employed person (self_employed/onboarding/create, D22): the person acts in the bank's
// app, which the admin endpoint (or the link itself) plays; npd/check then answers is_linked: true.
const T = { npdPendingMs: 1_000 };
let sb: RunningSandbox;
let client: SignedClient;
beforeEach(async () => {
  ({ sb, client } = await startTestSandbox({ timings: T, clock: { startAt: '2026-11-22T10:00:00Z' } }));
});
afterEach(() => sb.close());

const inn = TEST_INNS.SELF_EMPLOYED_NOT_LINKED;
const status = async (id: string) => (await client.v1('npd/request/status', { request_id: id })).body;
async function checkLinked(): Promise<boolean> {
  const r = await client.v1('npd/check', { tax_reference: inn });
  await sb.advance(31_000);
  return (await status(r.body.request_id)).is_linked;
}

test('a not-linked person is linked once they answer the link request; the request reports its state', async () => {
  expect(await checkLinked()).toBe(false);
  // The sandbox's clock runs on in real time: the request is made somewhere between these two readings
  // (to the second, a clock read before the call missed it on a loaded machine).
  const before = sb.clock.now();
  const created = await client.v1('self_employed/onboarding/create', {
    tax_reference: inn,
    return_url: 'https://payrun.example/linked',
  });
  const after = sb.clock.now();
  expect(created.body).toEqual({
    status: 'ok',
    request_id: expect.any(String),
    url: `${sb.url}/__sandbox/onboarding/${created.body.request_id}`,
    expires_at: expect.stringMatching(/^2026-11-29T10:0\d:\d\d/),
  });
  // Seven days after it was made, to the millisecond the sandbox writes.
  const expiresAt = Date.parse(created.body.expires_at as string);
  expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + LINK_REQUEST_TTL_MS);
  expect(expiresAt).toBeLessThanOrEqual(after + LINK_REQUEST_TTL_MS);
  const id = created.body.request_id as string;
  await sb.advance(T.npdPendingMs);
  expect(await status(id)).toMatchObject({ status: 'ok', link_status: 'created' });
  expect(await checkLinked()).toBe(false); // asking is not linking

  expect(await client.admin(`onboarding/${id}`, {})).toMatchObject({ status: 'ok', link_status: 'linked' });
  expect(await status(id)).toMatchObject({ link_status: 'linked' });
  expect(await checkLinked()).toBe(true);
  // Answered once: a second answer is refused.
  expect((await client.admin(`onboarding/${id}`, { result: 'declined' })).error.code).toBe('invalid_request');
});

test('a declined or lapsed request links nobody; the person and the return address are checked', async () => {
  const ask = async () =>
    (await client.v1('self_employed/onboarding/create', { tax_reference: inn })).body.request_id as string;
  const declined = await ask();
  expect(await client.admin(`onboarding/${declined}`, { result: 'declined' })).toMatchObject({
    link_status: 'declined',
  });
  const lapsed = await ask();
  await sb.advance(LINK_REQUEST_TTL_MS);
  expect(await status(lapsed)).toMatchObject({ link_status: 'expired' });
  expect((await client.admin(`onboarding/${lapsed}`, {})).error.description).toMatch(/already expired/);
  expect(await checkLinked()).toBe(false);

  const bad = await client.v1('self_employed/onboarding/create', { return_url: 'javascript:alert(1)' });
  expect(bad.status).toBe(400);
  expect(bad.body.error.description).toMatch(/tax_reference: .*return_url: must be a valid URL/);
});
