/** `url` with its password (in the user part or a `password=` parameter) replaced by `***`. */
export function maskPostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    // Not a URL the WHATWG parser takes: mask what looks like user:password@ by hand.
    return url.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
  }
}
