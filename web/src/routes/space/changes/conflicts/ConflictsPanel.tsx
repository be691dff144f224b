import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../../../lib/client';
import { ConflictsQuery, UpdateFromMain } from './documents';
import { ResolutionView } from './ResolutionView';
import './conflicts.css';

/**
 * A change request behind main: "Update from main" brings main's changes in; when they conflict
 * with the change request's, the resolution view lists the conflicting pages, hunk by hunk, and
 * sends the person's choices (after which the merge can go through). Nothing shows when the change
 * request is up to date, but what the last update did.
 */
export function ConflictsPanel({
  spaceId,
  number,
  canEdit,
  onUpdated,
}: {
  spaceId: string;
  number: string;
  canEdit: boolean;
  onUpdated: () => void;
}) {
  const [{ data, error }, reload] = useQuery({ query: ConflictsQuery, variables: { spaceId, changeRequest: number } });
  const [updating, update] = useMutation(UpdateFromMain);
  const [done, setDone] = useState<string | null>(null);
  const cr = data?.space.changeRequest;

  const updated = (message: string) => {
    setDone(message);
    reload({ requestPolicy: 'network-only' });
    onUpdated();
  };
  const run = async () => {
    setDone(null);
    const result = await update({ spaceId, changeRequestId: cr!.id });
    if (result.data) updated('Updated from main: this change request now has main’s changes.');
    else reload({ requestPolicy: 'network-only' });
  };

  if (error && !data)
    return (
      <p role="alert" className="error">
        Could not read the conflicts with main: {errorMessage(error)}
      </p>
    );
  if (!cr || (!cr.outdated && !done)) return null;
  return (
    <section aria-labelledby="update-from-main-heading" className="update-from-main">
      <h2 id="update-from-main-heading">Main’s changes</h2>
      {done && (
        <p role="status" className="done">
          {done}
        </p>
      )}
      {cr.outdated && (
        <>
          <p>Main has changed since this change request last took its changes in.</p>
          {canEdit ? (
            <button type="button" onClick={run} disabled={updating.fetching} aria-busy={updating.fetching}>
              Update from main
            </button>
          ) : (
            <p className="muted">Updating it from main needs the edit role on this space.</p>
          )}
          {updating.error && (
            <p role="alert" className="error">
              Not updated: {errorMessage(updating.error)}
            </p>
          )}
          {canEdit && cr.conflicts.length > 0 && (
            <ResolutionView
              spaceId={spaceId}
              changeRequestId={cr.id}
              conflicts={cr.conflicts}
              onResolved={() => updated('Resolved: this change request now has main’s changes and your choices. It can be merged.')}
            />
          )}
        </>
      )}
    </section>
  );
}
