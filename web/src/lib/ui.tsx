import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import type { CombinedError } from 'urql';
import { errorMessage, isUnauthenticated } from './client';
import { signInPath } from './paths';

/** What a screen shows before its data arrives: loading, an error (a lost session goes to sign in), or the screen. */
export function Loaded<T>({
  data,
  error,
  children,
}: {
  data: T | undefined | null;
  error: CombinedError | undefined;
  children: (data: T) => ReactNode;
}) {
  const location = useLocation();
  if (isUnauthenticated(error)) return <Navigate to={signInPath(location.pathname + location.search)} replace />;
  if (error && !data)
    return (
      <p role="alert" className="error">
        {errorMessage(error)}
      </p>
    );
  if (!data) return <p aria-busy="true">Loading…</p>;
  return <>{children(data)}</>;
}

/** A form's outcome line: the error of the last attempt, or what it did. */
export function Outcome({ error, done }: { error?: CombinedError; done?: string | null }) {
  if (error)
    return (
      <p role="alert" className="error">
        {errorMessage(error)}
      </p>
    );
  if (done)
    return (
      <p role="status" className="done">
        {done}
      </p>
    );
  return null;
}

const VISIBILITY_LABELS: Record<string, string> = {
  private: 'Private',
  public: 'Public',
  unlisted: 'Unlisted',
  share_link: 'Share link',
  visitor_auth: 'Visitor authentication',
  in_collection: 'As its collection',
  inherited: 'Inherited',
};

export function VisibilityBadge({ visibility }: { visibility: string }) {
  return <span className={`badge badge-${visibility}`}>{VISIBILITY_LABELS[visibility] ?? visibility}</span>;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
