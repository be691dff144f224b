import { useCallback, useEffect, useRef, useState } from 'react';

/** What the edit screen says about the text: nothing typed yet, being written, written, or failed (and retried). */
export type SaveState = 'idle' | 'saving' | 'saved' | 'error';

/** How long typing may pause before a save: fewer writes (and revisions) than one per keystroke. */
const SAVE_DELAY_MS = 800;
/** After a failed save, when to try again. */
const RETRY_DELAY_MS = 2000;

/**
 * Saves the latest text some time after it changes, one write at a time (a newer text waits for
 * the write in flight, then goes). A failed write is retried until it succeeds; `flush` saves now.
 */
export function useContinuousSave(write: (markdown: string) => Promise<boolean>) {
  const [state, setState] = useState<SaveState>('idle');
  const pending = useRef<string | null>(null);
  const inFlight = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const writeRef = useRef(write);
  writeRef.current = write;

  const flush = useCallback(async (): Promise<void> => {
    clearTimeout(timer.current);
    if (inFlight.current || pending.current === null) return;
    const markdown = pending.current;
    pending.current = null;
    inFlight.current = true;
    setState('saving');
    const ok = await writeRef.current(markdown).catch(() => false);
    inFlight.current = false;
    if (!ok) {
      // A newer text, if any, replaces the failed one: it holds the failed edits too.
      pending.current ??= markdown;
      setState('error');
      timer.current = setTimeout(() => void flush(), RETRY_DELAY_MS);
    } else if (pending.current !== null) void flush();
    else setState('saved');
  }, []);

  const change = useCallback(
    (markdown: string) => {
      pending.current = markdown;
      clearTimeout(timer.current);
      timer.current = setTimeout(() => void flush(), SAVE_DELAY_MS);
    },
    [flush],
  );

  const unsaved = () => pending.current !== null || inFlight.current;

  // biome-ignore lint/correctness/useExhaustiveDependencies: unsaved() reads refs only, so the listener made once stays right
  useEffect(() => {
    // Leaving with unsaved text: save now and ask the browser to hold the page.
    const beforeUnload = (event: BeforeUnloadEvent) => {
      if (!unsaved()) return;
      void flush();
      event.preventDefault();
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      window.removeEventListener('beforeunload', beforeUnload);
      clearTimeout(timer.current);
      void flush();
    };
  }, [flush]);

  return { state, change, flush };
}
