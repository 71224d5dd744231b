/** `text` quoted for a POSIX shell when it needs quoting, so a printed command can be pasted. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
