import { useCallback, useEffect, useRef, useState } from 'react';
import { useClient, useSubscription } from 'urql';
import { ChangeRequestSaveEvents, ChangeRequestSaves } from './documents';

type Contributors = Map<string, { at: string; name: string }>;

/**
 * Another person's saves into the change request being edited. Their edit shows as a change of
 * their latest edit time among the change request's contributors (read when the editor opens, on
 * each live event of the change request, and before each of our saves). From then on our saves
 * wait: the person chooses to reload (their text; ours is dropped) or to keep theirs over it —
 * nothing is overwritten without them saying so.
 */
export function useForeignSaves(spaceId: string, changeRequestId: string, onReload: () => void) {
  const client = useClient();
  const [by, setBy] = useState<string | null>(null);
  const byRef = useRef<string | null>(null);
  const seen = useRef<Contributors | null>(null);
  const latest = useRef<Contributors>(new Map());
  const waiting = useRef<((go: boolean) => void)[]>([]);
  const discarded = useRef(false);

  const check = useCallback(async (): Promise<void> => {
    const { data } = await client
      .query(ChangeRequestSaves, { spaceId, changeRequest: changeRequestId }, { requestPolicy: 'network-only' })
      .toPromise();
    if (!data) return;
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
    seen.current = latest.current;
    byRef.current = null;
    setBy(null);
    settle(true);
  };
  return { by, guard, reload, keepMine };
}

export type ForeignSaves = ReturnType<typeof useForeignSaves>;

/** The prompt shown once another person saved the change request. */
export function ForeignSavePrompt({ saves }: { saves: ForeignSaves }) {
  if (!saves.by) return null;
  return (
    <div role="alert" className="foreign-save">
      <p>
        <strong>Updated by {saves.by}</strong> — reload to see their changes. What you type is not saved until you choose.
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
