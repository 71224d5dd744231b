/** An error the API answered with: its code, message and hint. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint: string | undefined,
  ) {
    super(message);
  }
}

async function parse<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as {
    error?: { code: string; message: string; hint?: string };
  };
  if (!response.ok) {
    const e = body.error;
    throw new ApiError(
      response.status,
      e?.code ?? String(response.status),
      e?.message ?? response.statusText,
      e?.hint,
    );
  }
  return body as T;
}

/** GET a JSON resource of the API. */
export async function getJson<T>(path: string): Promise<T> {
  return parse<T>(await fetch(path, { headers: { accept: 'application/json' } }));
}

/** POST JSON to the API. */
export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  return parse<T>(
    await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** A path segment, encoded. */
export const seg = (text: string): string => encodeURIComponent(text);
