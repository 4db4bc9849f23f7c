/**
 * HTML written as template literals with every interpolated value escaped, unless it is already Html (a
 * piece built the same way). Long digit runs in people's words go through maskNumbers first (`text`).
 */
import { maskNumbers } from '../../workflows/payout/ending';

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false || part === true) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part as string | number));
}

export function html(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0]!;
  parts.forEach((p, i) => (out += render(p) + strings[i + 1]!));
  return new Html(out);
}

/** Words that came from outside (the bank, the file, a validator): card and account numbers masked. */
export const text = (s: string | undefined) => escapeHtml(maskNumbers(s ?? ''));
export const masked = (s: string | undefined) => new Html(text(s));

export type Cell = Html | string | number;

/** A data table: a caption, column headers, rows; the columns in `numeric` right-aligned (amounts, counts). */
export function table(opts: {
  id?: string;
  caption?: string;
  headers: readonly string[];
  rows: readonly Cell[][];
  numeric?: readonly number[];
}): Html {
  const numeric = new Set(opts.numeric ?? []);
  return html`<table ${opts.id ? html`id="${opts.id}"` : ''}>
    ${
      opts.caption
        ? html`<caption>
            ${opts.caption}
          </caption>`
        : ''
    }
    <thead>
      <tr>
        ${opts.headers.map((h) => html`<th scope="col">${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${opts.rows.map(
        (row) =>
          html`<tr>
            ${row.map((c, i) => (numeric.has(i) ? html`<td class="num">${c}</td>` : html`<td>${c}</td>`))}
          </tr>`,
      )}
    </tbody>
  </table>`;
}
