import { useCallback, useEffect, useRef, useState } from 'react';
import { useClient, useSubscription } from 'urql';
import { ChangeRequestSaveEvents, ChangeRequestSaves } from './documents';

type Contributors = Map<string, { at: string; name: string }>;

/** Who saved, when the server refused our save but no other person's edit is known (another window of ours). */
const ANOTHER_SAVE = 'another save';

/**
 * Another person's saves into the change request being edited. Their edit shows as a change of
 * their latest edit time among the change request's contributors (read when the editor opens, on
 * each live event of the change request, and before each of our saves). From then on our saves
 * wait: the person chooses to reload (their text; ours is dropped) or to keep theirs over it —
 * nothing is overwritten without them saying so. A save that lands between our check and our
 * write is caught by the server: each write says the revision it is based on (`basedOn`: the one
 * the editor opened, then each of our saves'), and a page whose document changed since is refused
 * (`refused`), which holds our saves the same way. Keeping one's version bases the next save on
 * the latest revision seen: it replaces theirs, knowingly.
 */
export function useForeignSaves(spaceId: string, changeRequestId: string, revision: string, onReload: () => void) {
  const client = useClient();
  const [by, setBy] = useState<string | null>(null);
  const byRef = useRef<string | null>(null);
  const seen = useRef<Contributors | null>(null);
  const latest = useRef<Contributors>(new Map());
  const waiting = useRef<((go: boolean) => void)[]>([]);
  const discarded = useRef(false);
  const basedOn = useRef(revision);
  const latestRevision = useRef(revision);

  const check = useCallback(async (): Promise<void> => {
    const { data } = await client
      .query(ChangeRequestSaves, { spaceId, changeRequest: changeRequestId }, { requestPolicy: 'network-only' })
      .toPromise();
    if (!data) return;
    latestRevision.current = data.space.changeRequest.revision;
    const now: Contributors = new Map();
    for (const c of data.space.changeRequest.contributorList.items)
      if (c.user.id !== data.viewer.id) now.set(c.user.id, { at: `${c.updatedAt}#${c.count}`, name: c.user.displayName || 'someone' });
    latest.current = now;
    if (!seen.current) {
      seen.current = now;
      return;
    }
    const before = seen.current;
    const newer = [...now.entries()].filter(([id, c]) => before.get(id)?.at !== c.at).sort((a, b) => b[1].at.localeCompare(a[1].at));
    if (newer[0] && !byRef.current) {
      byRef.current = newer[0][1].name;
      setBy(byRef.current);
    }
  }, [client, spaceId, changeRequestId]);

  useEffect(() => {
    void check();
  }, [check]);
  const [live] = useSubscription({ query: ChangeRequestSaveEvents, variables: { spaceId, changeRequestId } });
  useEffect(() => {
    if (live.data) void check();
  }, [live.data, check]);

  /** Runs a save, unless another person's save is waiting for the person's choice (then after it). */
  const guard = useCallback(
    async (save: () => Promise<boolean>): Promise<boolean> => {
      if (discarded.current) return true;
      if (!byRef.current) await check();
      if (byRef.current && !(await new Promise<boolean>((resolve) => waiting.current.push(resolve)))) return true;
      return discarded.current ? true : save();
    },
    [check],
  );

  /** Our save was refused: another save changed the page since `basedOn` (now at `revision`). */
  const refused = useCallback(
    async (revision: string | undefined) => {
      if (revision) latestRevision.current = revision;
      await check();
      if (!byRef.current) {
        byRef.current = ANOTHER_SAVE;
        setBy(ANOTHER_SAVE);
      }
    },
    [check],
  );
  /** Our save went through: the next is based on it. */
  const saved = useCallback((revision: string) => {
    basedOn.current = latestRevision.current = revision;
  }, []);
  const basedOnNow = useCallback(() => basedOn.current, []);

  const settle = (go: boolean) => {
    const held = waiting.current;
    waiting.current = [];
    for (const resolve of held) resolve(go);
  };
  const reload = () => {
    discarded.current = true;
    settle(false);
    onReload();
  };
  const keepMine = () => {
    basedOn.current = latestRevision.current;
    seen.current = latest.current;
    byRef.current = null;
    setBy(null);
    settle(true);
  };
  return { by, guard, reload, keepMine, basedOn: basedOnNow, saved, refused };
}

export type ForeignSaves = ReturnType<typeof useForeignSaves>;

/** The prompt shown once another person saved the change request. */
export function ForeignSavePrompt({ saves }: { saves: ForeignSaves }) {
  if (!saves.by) return null;
  return (
    <div role="alert" className="foreign-save">
      <p>
        <strong>{saves.by === ANOTHER_SAVE ? 'Changed by another save' : `Updated by ${saves.by}`}</strong> — reload to see the changes.
        What you type is not saved until you choose.
      </p>
      <button type="button" className="primary" onClick={saves.reload}>
        Reload
      </button>{' '}
      <button type="button" onClick={saves.keepMine}>
        Keep my version
      </button>
    </div>
  );
}
