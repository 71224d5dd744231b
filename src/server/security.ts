import { isIP } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { clientError } from './api-error.js';
import type { TokenCheck } from './server-token.js';

/*
 * The service's doors. On localhost (the default) no token is asked, but two browser attacks on
 * local services are shut: DNS rebinding (a page whose name resolves to 127.0.0.1 — refused by the
 * Host check) and cross-site requests (another origin's page posting a job — refused by the Origin
 * check, and CORS stays closed so no other origin reads a response). Bound to anything else, every
 * request but /api/health needs the token: `Authorization: Bearer TOKEN`, or the cookie the
 * dashboard gets by opening `/?token=TOKEN` once.
 */

/** The cookie that carries the token for the dashboard (HttpOnly, SameSite=Strict). */
export const TOKEN_COOKIE = 'tradelab_token';

/** Names of a loopback bind that the Host header may give, besides literal loopback addresses. */
const LOOPBACK_NAMES = new Set(['localhost']);

/** Whether `host` (as given to --host) only listens on this machine. */
export function isLoopback(host: string): boolean {
  return (
    LOOPBACK_NAMES.has(host.toLowerCase()) ||
    isLoopbackIpv4(host) ||
    isLoopbackAddressInBrackets(`[${host.replace(/^\[|\]$/g, '')}]`)
  );
}

/** Whether `text` is a dotted-decimal IPv4 address in 127.0.0.0/8 (no other spelling). */
function isLoopbackIpv4(text: string): boolean {
  const parts = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)?.slice(1);
  return parts?.every((p) => Number(p) <= 255 && (p === '0' || !p.startsWith('0'))) === true;
}

/** Whether `text` is `[IPv6]` naming ::1 or an IPv4-mapped 127.x.y.z, in any spelling. */
function isLoopbackAddressInBrackets(text: string): boolean {
  const inner = /^\[([0-9a-f:.]+)\]$/i.exec(text)?.[1];
  if (inner === undefined || isIP(inner) !== 6) return false;
  // The URL parser writes an IPv6 address one way: ::1, and ::ffff:7f00:1 for ::ffff:127.0.0.1.
  const canonical = new URL(`http://[${inner}]/`).hostname;
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}

/**
 * Whether a Host header names this machine's loopback: `localhost`, a literal 127.x.y.z or a
 * bracketed loopback IPv6 address, each with an optional port. Nothing else: a DNS-rebinding page
 * is served from a name its author controls (`127.0.0.1.evil.com`, `127.evil.com`,
 * `localhost.evil.com`), which is never one of these; `localhost.` (the absolute form) is refused
 * too, as is an empty or missing Host.
 */
export function isLoopbackHost(header: string | undefined): boolean {
  const match = /^(\[[^\]]*\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(header ?? '');
  const name = match?.[1]?.toLowerCase();
  if (name === undefined) return false;
  return LOOPBACK_NAMES.has(name) || isLoopbackIpv4(name) || isLoopbackAddressInBrackets(name);
}

/** Whether a write's Origin is the service's own page on a loopback bind: http, a loopback Host, the same host:port. */
function isLoopbackOrigin(origin: string, host: string): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (
    url.protocol === 'http:' &&
    url.origin === origin.toLowerCase().replace(/\/$/, '') &&
    isLoopbackHost(url.host) &&
    url.host === host.toLowerCase()
  );
}

/** Security headers on every response: no sniffing, no framing, scripts only from the service. */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'no-referrer');
  c.header(
    'Content-Security-Policy',
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
  );
};

/**
 * Refuses DNS-rebinding Hosts on a loopback bind, and cross-origin writes everywhere: on a
 * loopback bind a write's Origin must itself be a loopback origin of this service (an http
 * origin whose host:port is the Host), elsewhere the Host it was sent to.
 */
export function originChecks(loopback: boolean): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (loopback && !isLoopbackHost(host)) {
      return c.json(
        clientError(
          'FORBIDDEN_HOST',
          `Host "${host}" is not this machine's loopback name`,
          'open the service as http://127.0.0.1:PORT or http://localhost:PORT',
        ),
        403,
      );
    }
    const method = c.req.method;
    const origin = c.req.header('origin');
    if (method !== 'GET' && method !== 'HEAD' && origin !== undefined) {
      const allowed = loopback
        ? isLoopbackOrigin(origin, host)
        : URL.canParse(origin) && new URL(origin).host === host.toLowerCase();
      if (!allowed) {
        return c.json(
          clientError(
            'FORBIDDEN_ORIGIN',
            `a request from origin ${origin} may not change anything here`,
            'the service takes writes only from its own dashboard or from clients that send no Origin',
          ),
          403,
        );
      }
    }
    await next();
    return undefined;
  };
}

/** The login page a browser gets at / without the token. */
function loginPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>tradelab: token needed</title>
<link rel="stylesheet" href="/assets/style.css"></head><body class="login"><main>
<h1>tradelab</h1><p>This service asks for its token. It was printed once when the service first
started; <code>tradelab serve --new-token</code> makes a new one.</p>
<form method="get" action="/"><label>Token <input name="token" type="password" autocomplete="off" required></label>
<button type="submit">Open</button></form></main></body></html>`;
}

/** Requires the token for everything but /api/health and the login page's stylesheet. */
export function requireToken(check: TokenCheck): MiddlewareHandler {
  return async (c: Context, next) => {
    const path = c.req.path;
    if (path === '/api/health' || path === '/assets/style.css') {
      await next();
      return undefined;
    }
    const fromQuery = c.req.query('token');
    if (fromQuery !== undefined && path === '/') {
      if (check.verify(fromQuery)) {
        setCookie(c, TOKEN_COOKIE, fromQuery, {
          httpOnly: true,
          sameSite: 'Strict',
          path: '/',
        });
        return c.redirect('/', 302);
      }
      return c.html(loginPage(), 401);
    }
    const auth = c.req.header('authorization');
    // The scheme's name is case-insensitive (RFC 7235 2.1): `bearer TOKEN` is the same.
    const bearer = /^bearer +(\S+) *$/i.exec(auth ?? '')?.[1];
    const presented = bearer ?? getCookie(c, TOKEN_COOKIE);
    if (presented !== undefined && check.verify(presented)) {
      await next();
      return undefined;
    }
    c.header('WWW-Authenticate', 'Bearer realm="tradelab"');
    if (path === '/' || !path.startsWith('/api/')) return c.html(loginPage(), 401);
    return c.json(
      clientError(
        'UNAUTHORIZED',
        presented === undefined ? 'this service needs its token' : 'wrong token',
        'send Authorization: Bearer TOKEN (printed when the service first started; `tradelab serve --new-token` makes a new one)',
      ),
      401,
    );
  };
}
