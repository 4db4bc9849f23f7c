/** The passkey page: the person's passkeys the policy lists, and registering a new one (/static/passkeys.js). */
import type { PolicyPasskey } from '../../workflows/shared/approval-contract';
import { html } from './html';
import { PASSKEY_MESSAGES } from './messages-passkeys';
import { csrfField, layout, type PageContext } from './views';

export function passkeysPage(ctx: PageContext, listed: PolicyPasskey[], consoleNamed: boolean): string {
  const p = PASSKEY_MESSAGES[ctx.lang];
  return layout(
    ctx,
    p.heading,
    html`<h1>${p.heading}</h1>
      <p>${p.intro}</p>
      <h2>${p.listed}</h2>
      ${
        listed.length === 0
          ? html`<p id="passkeys-none">${p.none}</p>`
          : html`<ul id="passkeys">
              ${listed.map((k) => html`<li><code>${k.alg}:${k.id.slice(0, 16)}…</code></li>`)}
            </ul>`
      }
      ${
        consoleNamed
          ? html`<form id="passkey-register" data-csrf="${ctx.csrf}" data-lang="${ctx.lang}">
                <button type="submit" class="primary">${p.register}</button>
                <noscript><p>${p.noScript}</p></noscript>
              </form>
              <div id="passkey-result" hidden>
                <p>${p.created}</p>
                <label for="passkey-line" class="hint">passkey</label>
                <textarea id="passkey-line" readonly rows="3" cols="80"></textarea>
                <p>${p.command}</p>
                <pre id="passkey-command"></pre>
              </div>
              <p id="passkey-error" class="flash error" role="alert" hidden></p>`
          : html`<p role="alert">${p.noConsole}</p>`
      }
      <script src="/static/passkeys.js" defer></script>`,
  );
}

/** What marks a decision form for /static/passkeys.js: where to fetch its statement, and its words. */
export function passkeyForm(ctx: PageContext, batchId: string, decision: 'approve' | 'reject') {
  const p = PASSKEY_MESSAGES[ctx.lang];
  return html`data-passkey="/batches/${batchId}/statement" data-decision="${decision}"
  data-signing="${p.signing}" data-cancelled="${p.cancelled}"`;
}

/** Where the script says what the passkey is doing; and the script itself. */
export const passkeyStatus = () =>
  html`<p id="passkey-status" role="status" hidden></p>
    <script src="/static/passkeys.js" defer></script>`;

/**
 * Passkey sign-in beside the password form: no login name (the browser offers the site's discoverable
 * passkeys). Without a script the form posts no answer and the console says a script is needed.
 */
export function passkeySignIn(ctx: PageContext) {
  const p = PASSKEY_MESSAGES[ctx.lang].signIn;
  return html`<section aria-labelledby="passkey-signin-h">
      <h2 id="passkey-signin-h">${p.or}</h2>
      <form
        id="passkey-signin"
        method="post"
        action="/login/passkey"
        data-options="/login/passkey/options"
        data-asking="${p.asking}"
        data-cancelled="${p.cancelled}"
      >
        ${csrfField(ctx)}
        <button type="submit">${p.button}</button>
      </form>
      <p id="passkey-signin-status" role="status" hidden></p>
    </section>
    <script src="/static/passkeys.js" defer></script>`;
}
