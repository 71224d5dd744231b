const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Text made safe for HTML and SVG, both as element content and inside quoted attributes. Control
 * characters other than tab and newlines are dropped: XML forbids them, so a stray one in a series
 * name would otherwise make the SVG unreadable.
 */
export function escapeHtml(text: string): string {
  return (
    text
      // Everything below the space except tab, line feed and carriage return.
      .replace(/[^\t\n\r -\uFFFF]/g, '')
      .replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char)
  );
}
