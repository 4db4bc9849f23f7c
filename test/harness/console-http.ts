/**
 * A browser's worth of HTTP for console tests that need no page scripts: a cookie jar, the CSRF token of
 * the last page, and a local address of its own (any of 127.0.0.0/8 reaches a console on 127.0.0.1), so
 * one test can be several people at several addresses without the console trusting a proxy's header.
 */
import { request } from 'node:http';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  elapsedMs: number;
}

export interface Send {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** An urlencoded form (the page's token added unless `_csrf` is given). */
  form?: Record<string, string>;
}

export class ConsoleBrowser {
  private readonly cookies = new Map<string, string>();
  /** The `_csrf` field of the last page that had one. */
  csrf = '';

  constructor(
    private readonly base: string,
    readonly localAddress = '127.0.0.1',
  ) {}

  async send(path: string, opts: Send = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...opts.headers };
    let body = opts.body;
    if (opts.form) {
      body = new URLSearchParams({ _csrf: this.csrf, ...opts.form }).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const url = new URL(path, this.base);
    const started = Date.now();
    const answer = await new Promise<Answer>((resolve, reject) => {
      const req = request(
        url,
        {
          method: opts.method ?? (body !== undefined ? 'POST' : 'GET'),
          headers: { ...headers, ...(body !== undefined ? { 'content-length': String(body.length) } : {}) },
          localAddress: this.localAddress,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString('utf8'),
              elapsedMs: Date.now() - started,
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    for (const c of ([] as string[]).concat(answer.headers['set-cookie'] ?? [])) {
      const [pair] = c.split(';');
      const eq = pair!.indexOf('=');
      const value = pair!.slice(eq + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(c) || value === '')
        this.cookies.delete(pair!.slice(0, eq));
      else this.cookies.set(pair!.slice(0, eq), value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(answer.text);
    if (token) this.csrf = token[1]!;
    return answer;
  }

  /** The sign-in form, then the answer to posting it. */
  async signIn(person: string, password: string, totp = ''): Promise<Answer> {
    await this.send('/login');
    return this.send('/login', { form: { person, password, totp } });
  }

  hasSession(): boolean {
    return this.cookies.has('payrun_session');
  }

  forgetCookies(): void {
    this.cookies.clear();
  }
}

/** A multipart body whose first field is the page's CSRF token, as the upload form sends it. */
export function multipartUpload(
  csrf: string | undefined,
  file: { name: string; bytes: Buffer },
): { body: Buffer; headers: Record<string, string> } {
  const boundary = `----payrun${Date.now().toString(16)}`;
  const parts: Buffer[] = [];
  if (csrf !== undefined)
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n`),
    );
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return {
    body: Buffer.concat(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}
