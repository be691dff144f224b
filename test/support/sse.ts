import { expect } from 'vitest';

export interface SseMessage {
  event: string;
  data: any;
}

/** A GraphQL subscription over SSE, read with plain fetch: its messages in order. */
export async function subscribe(
  server: { url: string },
  token: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const abort = new AbortController();
  const response = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
    body: JSON.stringify({ query, variables }),
    signal: abort.signal,
  });
  expect(response.headers.get('content-type')).toContain('text/event-stream');
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  // A message is awaited as long as the test may run (a busy machine delivers late, not never).
  const next = async (timeoutMs = 25_000): Promise<SseMessage> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n').filter((l) => !l.startsWith(':')); // comments: keep-alive pings
        if (!lines.length) continue;
        const field = (name: string) =>
          lines
            .filter((l) => l.startsWith(`${name}:`))
            .map((l) => l.slice(name.length + 1).trim())
            .join('\n');
        const data = field('data');
        return { event: field('event'), data: data ? JSON.parse(data) : null };
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no SSE message within ${timeoutMs} ms (buffer: ${JSON.stringify(buffer)})`);
      const read = await Promise.race([reader.read(), new Promise<null>((resolve) => setTimeout(() => resolve(null), left))]);
      if (read === null) continue;
      if (read.done) throw new Error(`stream ended (buffer: ${JSON.stringify(buffer)})`);
      buffer += read.value;
    }
  };
  return { status: response.status, next, close: () => abort.abort() };
}
