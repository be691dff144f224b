import { type Settings, settings } from '../../config.js';
import { getFollowingRedirects, urlProblem as outboundUrlProblem } from '../../outbound/index.js';

export { FetchFailure } from '../../outbound/index.js';

/**
 * Fetching OpenAPI files (a spec's `source.url` and the external `$ref`s it names) on behalf of
 * users, through the outbound guard (src/outbound: public addresses only unless the operator
 * allows private ones, redirects checked, a time and a size limit per file), with the limits of a
 * spec:
 * - a time limit for the whole processing of a version (`LECTERN_OPENAPI_TOTAL_TIMEOUT_MS`,
 *   default 2 min, below the job queue's stale-job delay);
 * - a limit on the number of files one spec may pull in (`LECTERN_OPENAPI_MAX_FILES`, default 50);
 * - a limit on what the spec's files take once parsed, YAML aliases expanded
 *   (`LECTERN_OPENAPI_MAX_FILESYSTEM_BYTES`, default 32 MiB: the stored filesystem);
 * - processing runs in a worker thread (src/jobs/isolate.ts) with a heap of
 *   `LECTERN_OPENAPI_MEMORY_MB` (default 512) and a wall clock of the total fetch time plus
 *   `LECTERN_OPENAPI_PROCESS_TIMEOUT_MS` (default 60 s) for parsing and validating.
 * The settings are taken from the config on every call, so an operator's change applies to the
 * next job and tests can set them for themselves.
 */
export interface OpenAPIFetchSettings {
  allowPrivate: boolean;
  timeoutMs: number;
  totalTimeoutMs: number;
  maxBytes: number;
  maxFiles: number;
  maxFilesystemBytes: number;
  memoryMb: number;
  processTimeoutMs: number;
}

/** The OpenAPI fetch settings of the config (src/config.ts), with the one private-network switch. */
export function openAPIFetchSettings(config: Settings = settings()): OpenAPIFetchSettings {
  return { allowPrivate: config.allowPrivateNetwork, ...config.openapi };
}

/** Why a spec's `source.url` cannot be fetched, said without resolving it (400 up front); null when it may be. */
export const urlProblem = (value: string, fetchSettings = openAPIFetchSettings()) => outboundUrlProblem(value, fetchSettings.allowPrivate);

export interface FetchedFile {
  /** The URL the file was finally read from (after redirects): relative `$ref`s resolve against it. */
  url: string;
  text: string;
  contentType: string | null;
}

const seconds = (ms: number) => `${(ms / 1000).toLocaleString('en', { maximumFractionDigits: 3 })} s`;

/** GETs one file of a spec through the guard, following redirects; text is decoded as UTF-8. */
export async function fetchFile(rawUrl: string, opts: { settings?: OpenAPIFetchSettings; deadline?: number } = {}): Promise<FetchedFile> {
  const fetchSettings = opts.settings ?? openAPIFetchSettings();
  const got = await getFollowingRedirects(rawUrl, {
    policy: fetchSettings,
    deadline: opts.deadline,
    accept: 'application/json, application/yaml, text/yaml, application/x-yaml, text/plain;q=0.9, */*;q=0.5',
    userAgent: 'Lectern-OpenAPI-Fetcher',
    timeoutNote: `and ${seconds(fetchSettings.totalTimeoutMs)} per spec version`,
  });
  let text = got.bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { url: got.url, text, contentType: got.contentType };
}
