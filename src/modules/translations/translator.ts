/**
 * The translator of translation runs, behind an interface chosen by configuration. The one provider
 * is an HTTP client of the LibreTranslate API (`POST {url}/translate` with `{ q, source, target,
 * format, api_key }`, answering `{ translatedText }`), which LibreTranslate itself and several
 * self-hostable and hosted services speak: `LECTERN_TRANSLATOR_URL` (its base URL),
 * `LECTERN_TRANSLATOR_API_KEY` (optional), `LECTERN_TRANSLATOR_TIMEOUT_MS` (per request, default 60 s).
 * Without a translator configured, runs fail with a reason saying so.
 */
// Its settings are part of the configuration: src/config.ts reads them and owns the type.
import type { TranslatorConfig } from '../../config.js';

export interface TranslationRequest {
  /** Language codes of the API (TranslationLanguage: `en`, `pt-br`, …). */
  source: string;
  target: string;
  /** The translation's instructions as plain text (providers that cannot use them ignore them). */
  instructions: string | null;
}

export interface Translator {
  readonly name: string;
  /** Translates plain-text strings; answers them in the same order. */
  translate(texts: string[], request: TranslationRequest): Promise<string[]>;
}

/** API language codes LibreTranslate spells differently. */
const LIBRETRANSLATE_CODES: Record<string, string> = { 'pt-br': 'pt-BR', no: 'nb', zh: 'zh-Hans' };

/** Texts per request and characters per request: large pages go in several requests. */
const BATCH_TEXTS = 50;
const BATCH_CHARS = 8000;

export function libreTranslate(config: TranslatorConfig, fetchImpl: typeof fetch = fetch): Translator {
  const endpoint = `${config.url.replace(/\/+$/, '')}/translate`;
  const code = (language: string) => LIBRETRANSLATE_CODES[language] ?? language;

  async function call(batch: string[], request: TranslationRequest): Promise<string[]> {
    let response: Response;
    try {
      response = await fetchImpl(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          q: batch,
          source: code(request.source),
          target: code(request.target),
          format: 'text',
          ...(config.apiKey ? { api_key: config.apiKey } : {}),
        }),
        signal: AbortSignal.timeout(config.timeoutMs),
      });
    } catch (error) {
      throw new Error(`translator unreachable (${endpoint}): ${error instanceof Error ? error.message : error}`);
    }
    const text = await response.text();
    let body: { translatedText?: unknown; error?: unknown } = {};
    try {
      body = JSON.parse(text);
    } catch {
      // reported below
    }
    if (!response.ok) throw new Error(`translator answered ${response.status}${typeof body.error === 'string' ? `: ${body.error}` : ''}`);
    const translated = typeof body.translatedText === 'string' && batch.length === 1 ? [body.translatedText] : body.translatedText;
    if (!Array.isArray(translated) || translated.length !== batch.length || translated.some((t) => typeof t !== 'string')) {
      throw new Error('translator answered an unexpected body (expected translatedText with one string per text)');
    }
    return translated as string[];
  }

  return {
    name: 'libretranslate',
    async translate(texts, request) {
      const out: string[] = [];
      let batch: string[] = [];
      let chars = 0;
      for (const text of texts) {
        if (batch.length && (batch.length >= BATCH_TEXTS || chars + text.length > BATCH_CHARS)) {
          out.push(...(await call(batch, request)));
          batch = [];
          chars = 0;
        }
        batch.push(text);
        chars += text.length;
      }
      if (batch.length) out.push(...(await call(batch, request)));
      return out;
    },
  };
}

export function translatorFor(config: { translator: TranslatorConfig | null }): Translator | null {
  return config.translator ? libreTranslate(config.translator) : null;
}
