/**
 * The console's only stylesheet and script, served from its own origin so the Content-Security-Policy can
 * forbid every inline script and style. The script is an enhancement: drag and drop onto the upload form,
 * and the batch page's progress bar polled once a second until the batch is done.
 */
export const CONSOLE_CSS = `
:root { font-family: system-ui, "DejaVu Sans", sans-serif; color: #1a1a1a; background: #fff; line-height: 1.45; }
body { margin: 0; }
[hidden] { display: none !important; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; }
header { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; padding: .5rem 1rem; background: #0b3d62; color: #fff; }
header a, header .who { color: #fff; }
header nav { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; flex: 1; }
header ul { display: flex; flex-wrap: wrap; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.brand { font-weight: bold; margin: 0; }
main { padding: 1rem; max-width: 72rem; }
.stack { display: grid; gap: .4rem; max-width: 28rem; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: 1rem; }
.actions { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; margin: 1rem 0; }
input, select, button { font: inherit; padding: .3rem .5rem; }
button { cursor: pointer; border: 1px solid #0b3d62; background: #fff; color: #0b3d62; border-radius: 3px; }
button.primary { background: #0b3d62; color: #fff; }
:focus-visible { outline: 3px solid #d9822b; outline-offset: 2px; }
table { border-collapse: collapse; margin: 1rem 0; width: 100%; }
caption { text-align: left; font-weight: bold; padding: .3rem 0; }
th, td { border: 1px solid #999; padding: .25rem .5rem; text-align: left; vertical-align: top; }
td.num { text-align: right; white-space: nowrap; }
.dropzone { border: 2px dashed #0b3d62; padding: 1rem; display: grid; gap: .4rem; }
.dropzone.over { background: #e6f0f7; }
.flash { padding: .5rem; border: 1px solid; }
.flash.ok { border-color: #1e6b30; background: #eaf6ec; }
.flash.error, .bad { border-color: #a4161a; background: #fbeaea; color: #7a0f12; }
.hint { color: #444; font-size: .9em; margin: .2rem 0; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
.facts dt { font-weight: bold; }
.facts dd { margin: 0; }
progress { width: 100%; height: 1.5rem; }
.flag { display: inline-block; margin: .1rem .2rem .1rem 0; padding: 0 .3rem; border: 1px solid #8a5a00; border-radius: 3px; background: #fff4e0; color: #4d3100; }
.flag.bad { border-color: #a4161a; background: #fbeaea; color: #7a0f12; }
.pager { display: flex; gap: 1rem; align-items: center; }
@media (max-width: 40rem) {
  table, thead, tbody, tr, th, td { font-size: .9em; }
  .facts { grid-template-columns: 1fr; }
  main { padding: .5rem; }
  /* A phone (390 px): tables share the width and long ids break, instead of scrolling the page sideways. */
  table { table-layout: fixed; }
  th, td { overflow-wrap: anywhere; padding: .2rem .25rem; }
  td.num { white-space: normal; }
  main, header { overflow-wrap: anywhere; }
  input, select, button { max-width: 100%; box-sizing: border-box; }
  .stack, .dropzone { max-width: 100%; grid-template-columns: minmax(0, 1fr); }
  input[type='file'] { min-width: 0; width: 100%; }
}
`;

export const CONSOLE_JS = `
'use strict';
(function () {
  var zone = document.getElementById('dropzone');
  var input = document.getElementById('file');
  if (zone && input) {
    zone.addEventListener('dragover', function (e) { e.preventDefault(); zone.classList.add('over'); });
    zone.addEventListener('dragleave', function () { zone.classList.remove('over'); });
    zone.addEventListener('drop', function (e) {
      e.preventDefault();
      zone.classList.remove('over');
      if (e.dataTransfer && e.dataTransfer.files.length > 0) input.files = e.dataTransfer.files;
    });
  }
  var bar = document.getElementById('progress');
  if (!bar || bar.dataset.phase === 'done') return;
  var text = document.getElementById('progress-text');
  var phase = document.getElementById('phase');
  function poll() {
    fetch('/batches/' + encodeURIComponent(bar.dataset.batch) + '/progress.json', { credentials: 'same-origin' })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (p) {
        if (p) {
          bar.max = p.rows;
          bar.value = p.finished;
          bar.dataset.phase = p.phase;
          text.textContent = p.text;
          phase.textContent = p.phaseText;
          var body = document.querySelector('#by-state tbody');
          if (body) {
            body.textContent = '';
            p.byState.forEach(function (r) {
              var tr = document.createElement('tr');
              [r.state, String(r.count), r.amount].forEach(function (v, i) {
                var td = document.createElement('td');
                td.textContent = v;
                if (i > 0) td.className = 'num';
                tr.appendChild(td);
              });
              body.appendChild(tr);
            });
          }
          if (p.phase === 'done')
            document.querySelectorAll('.while-running').forEach(function (e) { e.hidden = true; });
          if (p.reportReady) {
            var d = document.getElementById('downloads');
            if (d) d.hidden = false;
            var n = document.getElementById('no-report');
            if (n) n.hidden = true;
          }
          if (p.phase === 'done' && p.reportReady) return;
        }
        setTimeout(poll, 1000);
      })
      .catch(function () { setTimeout(poll, 3000); });
  }
  setTimeout(poll, 1000);
})();
`;
