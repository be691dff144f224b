/**
 * Text normalisation for conversation analysis: plain text out of message bodies (Markdown or
 * HTML), sentences, and the terms TF-IDF weighs — lower-cased words, stop words removed, a few
 * multi-word expressions folded into one term ("sign in", "log-in", "login" → `login`), and each
 * word reduced to its Porter (1980) stem, so "exporting", "exports" and "exported" count as one
 * term. Everything here is pure and deterministic.
 */
import { stemmer } from 'stemmer';
import { htmlText, parseMarkdown } from '../../document/index.js';

/** Plain text of a message body: HTML converted to text, then Markdown syntax removed, code kept as text. */
export function plainText(body: string): string {
  const noHtml = htmlText(body);
  try {
    return parseMarkdown(noHtml).text;
  } catch {
    return noHtml;
  }
}

/** Sentences of a text: split after . ! ? (not inside numbers or common abbreviations) and at line breaks. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    const parts = line.split(/(?<=[.!?])\s+(?=["'([]?[A-Z0-9@#])/);
    for (const part of parts) {
      const trimmed = part.trim();
      if (trimmed) out.push(trimmed);
    }
  }
  // Re-join splits after abbreviations such as "e.g." or "i.e.".
  const joined: string[] = [];
  for (const s of out) {
    const prev = joined[joined.length - 1];
    if (prev && /\b(e\.g|i\.e|etc|vs|approx|incl)\.$/i.test(prev)) joined[joined.length - 1] = `${prev} ${s}`;
    else joined.push(s);
  }
  return joined;
}

export const wordCount = (text: string) => (text.match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu) ?? []).length;

// ---------------------------------------------------------------------------------------------
// Terms
// ---------------------------------------------------------------------------------------------

const STOP_WORDS = new Set(
  `a about above after again against all am an and any are aren't as at be because been before being below between both but by
  can can't cannot could couldn't did didn't do does doesn't doing don't down during each few for from further had hadn't has hasn't
  have haven't having he he'd he'll he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is
  isn't it it's its itself let's me more most mustn't my myself no nor not of off on once only or other ought our ours ourselves
  out over own same shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves
  then there there's these they they'd they'll they're they've this those through to too under until up very was wasn't we we'd
  we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's with won't would
  wouldn't you you'd you'll you're you've your yours yourself yourselves
  also just really still even already yet anyway though although however maybe perhaps probably actually basically
  hi hello hey dear thanks thank thx cheers regards best kind please pls help hope appreciate appreciated
  get gets got getting gotten go goes going went make makes made making seem seems seemed look looks looked
  try tries tried trying want wants wanted need needs needed know knows knew think thought see saw seen
  like would could should will shall may might must one two thing things something anything everything nothing
  way ways lot lots bit much many every any today yesterday now time times day days week weeks ago since
  issue issues problem problems question questions team guys folks someone anyone everyone support`.split(/\s+/),
);

/** Multi-word expressions and spellings folded into one term before tokenising. */
const PHRASES: [RegExp, string][] = [
  [/\bsingle[\s-]+sign[\s-]*on\b/g, ' sso '],
  [/\b(?:log|logging|logged|sign|signing|signed)[\s-]?(?:in|on)\b/g, ' login '],
  [/\b(?:log|logging|logged|sign|signing|signed)[\s-]?out\b/g, ' logout '],
  [/\btwo[\s-]factor\b|\b2[\s-]?fa\b|\bmfa\b/g, ' 2fa '],
  [/\be-mail/g, 'email'],
  [/\bweb[\s-]hooks?\b/g, ' webhook '],
  [/\bsub[\s-]domains?\b/g, ' subdomain '],
  [/\bset[\s-]up\b/g, ' setup '],
  [/\bup[\s-]to[\s-]date\b/g, ' uptodate '],
  [/\bcan ?not\b|\bcan't\b/g, ' cannot '],
];

/**
 * The Porter stem of a lower-case word (the `stemmer` package, which implements Porter 1980).
 * Words of one or two letters and words with digits are kept as they are.
 */
export function stem(word: string): string {
  if (word.length <= 2 || !/^[a-z]+$/.test(word)) return word;
  return stemmer(word);
}

/** Normalised, stemmed terms of a text (in order, repeated as they occur). */
export function terms(text: string): string[] {
  let t = ` ${text.toLowerCase().replace(/[’‘]/g, "'")} `;
  t = t.replace(/https?:\/\/\S+|www\.\S+|\S+@\S+\.\S+/g, ' ');
  for (const [pattern, by] of PHRASES) t = t.replace(pattern, by);
  const out: string[] = [];
  for (const raw of t.match(/[a-z0-9][a-z0-9']*/g) ?? []) {
    const word = raw.replace(/'s$/, '').replace(/'/g, '');
    if (STOP_WORDS.has(raw) || STOP_WORDS.has(word)) continue;
    if (/^\d+$/.test(word) && word.length !== 3) continue; // numbers, except HTTP-status-like codes
    if (word.length < 2) continue;
    out.push(stem(word));
  }
  return out;
}

/** Term counts of a text. */
export function termCounts(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const term of terms(text)) counts[term] = (counts[term] ?? 0) + 1;
  return counts;
}
