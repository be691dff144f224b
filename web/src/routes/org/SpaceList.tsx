import { Link } from 'react-router';
import { appPath } from '../../lib/paths';
import { VisibilityBadge } from '../../lib/ui';

interface SpaceItem {
  id: string;
  title: string;
  emoji: string;
  visibility: string;
  urls: { app: string };
}

/** Spaces as the API lists them: emoji, title (a link to the space), visibility. */
export function SpaceList({ spaces }: { spaces: SpaceItem[] }) {
  if (!spaces.length) return <p className="muted">No spaces.</p>;
  return (
    <ul className="card-list">
      {spaces.map((s) => (
        <li key={s.id}>
          <Link to={appPath(s.urls.app)}>
            {s.emoji && <span aria-hidden="true">{emojiOf(s.emoji)} </span>}
            {s.title || 'Untitled space'}
          </Link>{' '}
          <VisibilityBadge visibility={s.visibility} />
        </li>
      ))}
    </ul>
  );
}

/** GitBook stores an emoji as its code point in hex ("1f4d8"); shown as the character. */
export function emojiOf(value: string): string {
  if (/^[0-9a-f]{4,6}(-[0-9a-f]{4,6})*$/i.test(value)) {
    try {
      return String.fromCodePoint(...value.split('-').map((h) => parseInt(h, 16)));
    } catch {
      return '';
    }
  }
  return value;
}
