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

/** Hostnames of a loopback bind that the Host header may name. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Whether `host` (as given to --host) only listens on this machine. */
export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The hostname of a Host header (`localhost:8321` → `localhost`, `[::1]:80` → `[::1]`). */
function hostnameOf(header: string): string {
  const match = /^(\[[^\]]*\]|[^:]*)(:\d+)?$/.exec(header.trim().toLowerCase());
  return match?.[1] ?? '';
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

/** Refuses DNS-rebinding Hosts on a loopback bind, and cross-origin writes everywhere. */
export function originChecks(loopback: boolean): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (loopback && !LOOPBACK_HOSTS.has(hostnameOf(host)) && !/^127\./.test(hostnameOf(host))) {
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
      if (!URL.canParse(origin) || new URL(origin).host !== host.toLowerCase()) {
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
    const bearer = auth?.startsWith('Bearer ') === true ? auth.slice('Bearer '.length) : undefined;
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
