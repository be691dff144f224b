/** `text` with each occurrence of a query word (or a word it starts) marked, case-insensitively. */
export function Highlighted({ text, words }: { text: string; words: string[] }) {
  const terms = words.map((w) => w.replace(/^"|"$/g, '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).filter(Boolean);
  if (!terms.length) return <>{text}</>;
  const pattern = new RegExp(`(${terms.join('|')})`, 'gi');
  return <>{text.split(pattern).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))}</>;
}
