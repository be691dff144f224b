/**
 * The conversation analyser: what reads conversations and groups the issues they report. It sits
 * behind this interface and is chosen by configuration (`config.conversationAnalyser`):
 *
 * - `builtin` (the default): offline and deterministic — rule-based issue extraction
 *   (./extract.ts) and TF-IDF + cosine clustering (./clustering.ts).
 * - `openai`: issue extraction by a language model behind an OpenAI-compatible chat-completions
 *   API (`LECTERN_ANALYSER_URL`, `LECTERN_ANALYSER_MODEL`, `LECTERN_ANALYSER_API_KEY`): any hosted
 *   or self-hosted model server speaking that protocol. Its issues are clustered by the same
 *   TF-IDF clustering, so clusters stay deterministic for given issues.
 */
import type { Config } from '../../config.js';
import { DEFAULT_CLUSTERING, type ClusteringOptions } from './clustering.js';
import { IMPACTS, impactOf, shorten, type ConversationText, type ExtractedIssue, type Impact } from './extract.js';

/**
 * The CPU-bound parts (the built-in extraction, clustering) run in a worker thread (./tasks.ts,
 * through src/jobs/isolate.ts), so an analyser says which it uses rather than running them itself.
 */
export interface ConversationAnalyser {
  readonly name: string;
  /**
   * The issues a conversation reports, in the order raised (none when it reports no problem); null
   * for the built-in rules (./extract.ts), which analysis-job.ts runs in a worker thread.
   */
  readonly extractIssues: ((conversation: ConversationText) => Promise<ExtractedIssue[]>) | null;
  /** How issues are grouped (./clustering.ts, in a worker thread). */
  readonly clustering: ClusteringOptions;
}

export function builtinAnalyser(options: ClusteringOptions = DEFAULT_CLUSTERING): ConversationAnalyser {
  return { name: 'builtin', extractIssues: null, clustering: options };
}

const SYSTEM_PROMPT = `You read customer support conversations about a documentation platform and list the distinct problems the customer reports.
Answer with JSON only: {"issues":[{"title":"…","summary":"…","impact":"low|medium|high"}]} in the order the customer raises them; {"issues":[]} when the customer reports no problem (thanks, feedback, unrelated questions).
title: one line naming the problem. summary: one to three sentences in the customer's terms.
impact: low = minor friction; medium = noticeable friction or partial blocking with workarounds; high = fully or near-fully blocking, severe regression, repeated failures or risk of data loss.`;

/** An analyser whose extraction is done by a chat model behind an OpenAI-compatible API. */
export function openAIAnalyser(
  config: { url: string; model: string; apiKey?: string; timeoutMs?: number },
  fetchImpl: typeof fetch = fetch,
): ConversationAnalyser {
  return {
    name: 'openai',
    clustering: DEFAULT_CLUSTERING,
    async extractIssues(conversation: ConversationText) {
      const transcript = [
        conversation.subject ? `Subject: ${conversation.subject}` : '',
        ...conversation.parts.map((p) => `[${p.role}] ${p.body}`),
      ].join('\n\n');
      const response = await fetchImpl(`${config.url.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}) },
        body: JSON.stringify({
          model: config.model,
          temperature: 0,
          response_format: { type: 'json_object' },
          messages: [
            { role: 'system', content: SYSTEM_PROMPT },
            { role: 'user', content: transcript },
          ],
        }),
        signal: AbortSignal.timeout(config.timeoutMs ?? 60_000),
      });
      if (!response.ok) throw new Error(`conversation analyser: the model API answered ${response.status}`);
      const body = (await response.json()) as { choices?: { message?: { content?: string } }[] };
      const content = body.choices?.[0]?.message?.content;
      let parsed: { issues?: unknown };
      try {
        parsed = JSON.parse(String(content).replace(/^```(?:json)?\s*|\s*```$/g, ''));
      } catch {
        throw new Error('conversation analyser: the model did not answer JSON');
      }
      if (!Array.isArray(parsed.issues)) throw new Error('conversation analyser: the model answer has no issues list');
      return parsed.issues.flatMap((raw): ExtractedIssue[] => {
        const issue = raw as { title?: unknown; summary?: unknown; impact?: unknown };
        if (typeof issue.title !== 'string' || !issue.title.trim()) return [];
        const summary = typeof issue.summary === 'string' && issue.summary.trim() ? issue.summary.trim() : issue.title.trim();
        // The model's impact when it gives a valid one, else the built-in rules on its summary.
        const impact: Impact = IMPACTS.includes(issue.impact as Impact) ? (issue.impact as Impact) : impactOf([summary]).impact;
        return [
          {
            title: shorten(issue.title, 120),
            summary: shorten(summary, 600),
            details: summary,
            impact,
            text: `${issue.title}\n${summary}`,
          },
        ];
      });
    },
  };
}

export function analyserFor(config: Pick<Config, 'conversationAnalyser'>): ConversationAnalyser {
  const chosen = config.conversationAnalyser;
  return chosen?.kind === 'openai' ? openAIAnalyser(chosen) : builtinAnalyser();
}
