/**
 * /static/passkeys.js: the browser's half of passkeys, served from the console's origin (its CSP forbids
 * inline scripts). Registering: navigator.credentials.create, the public key as SPKI from getPublicKey()
 * (no CBOR to parse), sent back for the line the admin adds. Deciding: the approve/reject forms marked
 * data-passkey fetch the statement the console would sign, ask navigator.credentials.get to answer
 * SHA-256 of its canonical text with user verification required, and post the statement with the answer.
 * Signing in: the login page's #passkey-signin form fetches a one-time challenge (bound to this browser by a
 * cookie), asks navigator.credentials.get for any of the site's discoverable passkeys (no name typed, no
 * list of credential ids from the server), with user verification required, and posts the answer.
 */
export const PASSKEYS_JS = `
'use strict';
(function () {
  function b64(buf) {
    var s = '';
    new Uint8Array(buf).forEach(function (b) { s += String.fromCharCode(b); });
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function unb64(text) {
    var s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
    var out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }
  function post(url, csrf, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify(body),
    }).then(function (r) {
      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error || String(r.status)); return j; });
    });
  }
  function show(el, text) { if (el) { el.textContent = text; el.hidden = false; } }
  // What navigator.credentials.get answered, as the server reads it (base64url parts).
  function answerOf(cred) {
    var r = cred.response;
    return {
      credentialId: b64(cred.rawId),
      authenticatorData: b64(r.authenticatorData),
      clientDataJSON: b64(r.clientDataJSON),
      signature: b64(r.signature),
    };
  }
  // Posts the form with these fields added as hidden inputs, once (the submit handler lets it through).
  function submitWith(form, fields) {
    Object.keys(fields).forEach(function (name) {
      var input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      input.value = fields[name];
      form.appendChild(input);
    });
    form.dataset.signed = 'passkey';
    form.submit();
  }

  var reg = document.getElementById('passkey-register');
  if (reg) reg.addEventListener('submit', function (e) {
    e.preventDefault();
    var csrf = reg.dataset.csrf;
    var error = document.getElementById('passkey-error');
    error.hidden = true;
    post('/passkeys/options', csrf, {})
      .then(function (o) {
        return navigator.credentials.create({ publicKey: {
          challenge: unb64(o.challenge),
          rp: { id: o.rpId, name: 'payrun' },
          user: { id: unb64(o.userId), name: o.userName, displayName: o.displayName },
          pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -8 }],
          authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
          excludeCredentials: o.exclude.map(function (id) { return { type: 'public-key', id: unb64(id) }; }),
          attestation: 'none',
          timeout: 120000,
        } });
      })
      .then(function (cred) {
        var r = cred.response;
        return post('/passkeys/register', csrf, {
          id: b64(cred.rawId),
          alg: r.getPublicKeyAlgorithm(),
          publicKey: b64(r.getPublicKey()),
          authenticatorData: b64(r.getAuthenticatorData()),
          clientDataJSON: b64(r.clientDataJSON),
        });
      })
      .then(function (done) {
        document.getElementById('passkey-line').value = done.line;
        document.getElementById('passkey-command').textContent = done.command;
        document.getElementById('passkey-result').hidden = false;
      })
      .catch(function (err) { show(error, err.message); });
  });

  var signin = document.getElementById('passkey-signin');
  if (signin) signin.addEventListener('submit', function (e) {
    if (signin.dataset.signed) return;
    e.preventDefault();
    var csrf = signin.querySelector('input[name="_csrf"]').value;
    var status = document.getElementById('passkey-signin-status');
    show(status, signin.dataset.asking);
    post(signin.dataset.options, csrf, {})
      .then(function (o) {
        return navigator.credentials.get({ publicKey: {
          challenge: unb64(o.challenge),
          rpId: o.rpId,
          allowCredentials: [],
          userVerification: 'required',
          timeout: o.timeout,
        } });
      })
      .then(function (cred) { submitWith(signin, answerOf(cred)); })
      .catch(function (err) { show(status, err.name === 'NotAllowedError' ? signin.dataset.cancelled : err.message); });
  });

  document.querySelectorAll('form[data-passkey]').forEach(function (form) {
    form.addEventListener('submit', function (e) {
      if (form.dataset.signed) return;
      e.preventDefault();
      var csrf = form.querySelector('input[name="_csrf"]').value;
      var reason = form.querySelector('input[name="reason"]');
      var status = document.getElementById('passkey-status');
      show(status, form.dataset.signing);
      post(form.dataset.passkey, csrf, { decision: form.dataset.decision, reason: reason ? reason.value : '' })
        .then(function (s) {
          if (s.fallback) { form.dataset.signed = 'console'; form.submit(); return; }
          return crypto.subtle.digest('SHA-256', new TextEncoder().encode(s.message)).then(function (challenge) {
            return navigator.credentials.get({ publicKey: {
              challenge: challenge,
              rpId: s.rpId,
              allowCredentials: s.allow.map(function (id) { return { type: 'public-key', id: unb64(id) }; }),
              userVerification: 'required',
              timeout: 120000,
            } });
          }).then(function (cred) {
            submitWith(form, { statement: JSON.stringify(s.statement), passkey: JSON.stringify(answerOf(cred)) });
          });
        })
        .catch(function (err) { show(status, err.name === 'NotAllowedError' ? form.dataset.cancelled : err.message); });
    });
  });
})();
`;
