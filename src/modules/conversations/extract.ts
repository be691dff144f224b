/**
 * The built-in issue extractor: finds the problems a support conversation reports, without any
 * model or network — deterministic rules over the customer's own messages.
 *
 * 1. Only the customer's messages (`role: user`) are read; replies of the assistant or the team are
 *    not problems reported. Bodies may be Markdown or HTML (see `plainText`).
 * 2. The text is split into sentences; greetings, thanks and sign-offs are dropped.
 * 3. A sentence is a *problem statement* when it says something fails or is missing ("fails",
 *    "error", "can't", "not working", "slow", …) or asks how to do something ("how do I", "is it
 *    possible", "where can I", …).
 * 4. A sentence starting with a change of topic ("Also,", "Another thing:", "Separately,", "One
 *    more thing") starts a new issue — if the part it starts holds a problem statement of its own;
 *    otherwise it stays with the issue before. So one conversation can report several issues.
 * 5. A conversation without any problem statement (thanks, feedback, an unrelated question)
 *    reports no issue.
 *
 * Impact, by the definitions of the API:
 * - high: fully or near-fully blocking, a severe regression, repeated failures or a risk of data
 *   loss ("locked out", "nobody can", "data loss", "every time", "regression", "site is down", …);
 * - medium: noticeable friction or partial blocking with workarounds (an error, a failure, slowness
 *   — or a high-impact statement the customer has a workaround for);
 * - low: minor friction (questions, requests, cosmetic problems, or friction the customer calls
 *   minor).
 */
import { plainText, sentences } from './text.js';

export type Impact = 'low' | 'medium' | 'high';
export const IMPACTS: readonly Impact[] = ['low', 'medium', 'high'];
export const impactRank = (impact: string | null | undefined) => (impact ? IMPACTS.indexOf(impact as Impact) : -1);

export interface ConversationText {
  subject: string | null;
  parts: { type: string; role: string; body: string }[];
}

export interface ExtractedIssue {
  title: string;
  /** Plain-text summary: the problem statements. */
  summary: string;
  /** Markdown details (stored as a rich-text document). */
  details: string;
  impact: Impact;
  /** The text clustering compares (the issue's sentences, and the subject for the first issue). */
  text: string;
}

const GREETING = /^(hi|hello|hey|dear|good (morning|afternoon|evening)|greetings)\b[^.!?]{0,40}[.!?,]?$/i;
const SIGN_OFF = /^(thanks?|thank you|many thanks|cheers|best|regards|kind regards|best regards|sincerely|bye)\b[^.!?]{0,60}[.!?,]?$/i;
const TOPIC_SHIFT =
  /^(also|additionally|another (thing|issue|problem|question)|separately|one more thing|on (an|a) (other|unrelated|separate|different) note|unrelated(ly)?|second(ly)?|p\.?s\.?)\b[\s,:;.-]*/i;

const PROBLEM = new RegExp(
  [
    String.raw`\b(errors?|fail(s|ed|ing|ure|ures)?|broken|breaks?|bugs?|crash(es|ed|ing)?|freez(e|es|ing)|froze|hangs?|loops?)\b`,
    String.raw`\b(cannot|can't|couldn't|unable to|won't|doesn't|does not|didn't|isn't|aren't|don't match|not (working|showing|updating|loading|found|issued|synced|private))\b`,
    String.raw`\b(stopped|stuck|wrong|missing|lost|gone|overwr(o|i)te|overwritten|deleted|expired|invalid|rejected|denied|mismatch|truncated|cut off|off by)\b`,
    String.raw`\b(slow|sluggish|lags?|lagging|delay(ed)?|time(s|d)? out|timeout|never (finishes|issued|works)|outdated|out of date|old (content|wording|address))\b`,
    String.raw`\b(no results?|empty|blank|404|401|403|429|500|502|503)\b`,
    String.raw`\b(charged twice|billed for|paying for|refund|downgraded|conflicts?|warn(s|ing|ings)?|annoy(ing|ance)|frustrating|confusing|odd|jumps?)\b`,
    String.raw`\b(doesn't|does not|don't|didn't|isn't|aren't|won't) (seem to )?(work|create|show|appear|sync|load|update|match|support|find|allow)\b`,
    String.raw`\b(how (do|can|should) (i|we)|where (do|can) (i|we)|is it possible|is there (a|an|any)\b|what (are|is|do you recommend)|do (i|we) need|which (dns|record|value)|could (the|you|it|search|we)|can (we|i|you)|would it be possible|would (make|be nice)|should (be|treat|work|support|show|allow|use|rank|display|include|stay|keep|have))\b`,
  ].join('|'),
  'i',
);

const HIGH: RegExp[] = [
  /\b(data loss|lost (all|our|my|an? \w+ of)|(edits|changes|pages|work) (are|were) (gone|lost)|overwr(o|i)te all|wiped|corrupt(ed)?)\b/i,
  /\b(locked out|(is|are|completely) blocked|blocks (all|every|the whole|our)|blocker)\b/i,
  /\bcompletely\b/i,
  /\b(stopped working|nobody|no one|none of|(all|every) (of )?(our )?(\d+ )?(users|editors|members|visitors|customers)|everybody|whole (team|company|site|documentation)|entire (team|company|site))\b/i,
  /\b((is|are|went|goes|was) down|outage|unreachable)\b/i,
  /\b(can't|cannot|unable to|no longer able to) (reach|open|access|log ?in|sign ?in|edit)\b[^.]*\b(at all|any|anymore)\b/i,
  /\b(can't|cannot) (reach|access) (our|the|any)\b/i,
  /\b(urgent(ly)?|asap|critical|emergency|contractual)\b/i,
  /\bregression\b/i,
  /\b(every (single )?time|every attempt|repeatedly|again and again|keeps (failing|crashing)|happened (twice|again)|loops? forever)\b/i,
];
const NEGATED_HIGH = /\b(not|isn't|never|no) (\w+ )?(blocking|urgent|critical)\b/i;
const WORKAROUND =
  /\b(workaround|work around|for now|in the meantime|meanwhile|manually|by hand|one by one|as a temporary|retrying (works|helps)|retry(ing)? works|works? again|works fine|log in fine)\b/i;
const MEDIUM =
  /\b(doesn't|does not|don't|didn't|isn't|aren't|won't) (seem to )?(work|appear|sync|load|update)\b|\b(errors?|fail(s|ed|ing|ure)?|broken|doesn't work|does not work|not working|stopped|stuck|time(s|d)? ?out|timeout|slow|sluggish|lag|delay(ed)?|wrong|missing|incorrect|outdated|out of date|no results?|rejected|invalid|expired|[45]\d\d|some (users|people|pages)|a few (people|users)|intermittent(ly)?|sometimes|noticeable|frustrat\w*|warn(s|ing|ings)?|crash\w*|freez\w*|conflicts?|overwr\w*|downgrad\w*|refund|charged|billed|paying for|useless|broken)\b/i;
const MINOR = /\b(minor|small (thing|annoyance|issue)|not a big deal|a little|nice to have|would be nice|cosmetic)\b/i;

/** Questions and hypotheticals ("before we hit 429 errors") describe no impact that happened. */
const HYPOTHETICAL = /\b(before (we|i|you) (hit|get|run)|if (we|i|you)|in case|to avoid)\b/i;

/**
 * The impact the statements of an issue describe (see the module comment), and the phrase that
 * decided it. Questions and hypothetical sentences are not evidence; a workaround makes a
 * blocking problem partial (medium), and the customer's own "minor" makes friction low.
 */
export function impactOf(statements: string[]): { impact: Impact; evidence: string | null } {
  const t = statements
    .map((s) => s.replace(/[’‘]/g, "'"))
    .filter((s) => !s.endsWith('?') && !HYPOTHETICAL.test(s))
    .join(' ');
  const high = NEGATED_HIGH.test(t) ? null : HIGH.map((r) => t.match(r)).find((m) => m);
  const workaround = t.match(WORKAROUND);
  if (high)
    return workaround
      ? { impact: 'medium', evidence: `${high[0]} (with a workaround: ${workaround[0]})` }
      : { impact: 'high', evidence: high[0] };
  const medium = t.match(MEDIUM) ?? workaround;
  if (medium) {
    const minor = t.match(MINOR);
    return minor ? { impact: 'low', evidence: minor[0] } : { impact: 'medium', evidence: medium[0] };
  }
  return { impact: 'low', evidence: null };
}

const IMPACT_MEANING: Record<Impact, string> = {
  low: 'minor friction',
  medium: 'noticeable friction or partial blocking with workarounds',
  high: 'fully or near-fully blocking, severe regression, repeated failures or risk of data loss',
};

/** Up to `max` characters, cut at a word boundary. */
export function shorten(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

interface Segment {
  sentences: string[];
  problems: string[];
}

/** The issues a conversation reports (in the order raised). */
export function extractIssues(conversation: ConversationText): ExtractedIssue[] {
  const segments: Segment[] = [{ sentences: [], problems: [] }];
  for (const part of conversation.parts) {
    if (part.role !== 'user' || typeof part.body !== 'string') continue;
    for (const raw of sentences(plainText(part.body))) {
      if (GREETING.test(raw) || SIGN_OFF.test(raw)) continue;
      const shift = TOPIC_SHIFT.exec(raw);
      const sentence = shift ? capitalise(raw.slice(shift[0].length)) : raw;
      if (!sentence) continue;
      const isProblem = PROBLEM.test(sentence);
      const current = segments[segments.length - 1]!;
      // A change of topic starts a new issue when the conversation already has one.
      if (shift && isProblem && current.problems.length) segments.push({ sentences: [sentence], problems: [sentence] });
      else {
        current.sentences.push(sentence);
        if (isProblem) current.problems.push(sentence);
      }
    }
  }
  const subject = conversation.subject?.trim() || null;
  const reported = segments.filter((s) => s.problems.length);
  // The subject alone can state the problem ("Export fails"), with the messages as context.
  if (!reported.length && subject && PROBLEM.test(subject) && segments[0]!.sentences.length) {
    reported.push({ sentences: segments[0]!.sentences, problems: [subject] });
  }
  return reported.map((segment, i) => {
    const title = shorten(i === 0 && subject ? subject : segment.problems[0]!, 120);
    const summary = shorten(segment.problems.join(' '), 600);
    const text = [i === 0 && subject ? subject : '', ...segment.sentences].join('\n');
    const { impact, evidence } = impactOf([...(i === 0 && subject ? [subject] : []), ...segment.sentences]);
    const details = [
      segment.problems.map((s) => s.replace(/([\\`*_[\]<>#|])/g, '\\$1')).join(' '),
      `**Impact: ${impact}** (${IMPACT_MEANING[impact]})${evidence ? `: “${evidence.replace(/([\\`*_[\]<>#|])/g, '\\$1')}”` : ''}.`,
    ].join('\n\n');
    return { title, summary, details, impact, text };
  });
}
