import { useCallback } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from 'urql';
import { CommentedPage } from '../../../comments/CommentedPage';
import { ForeignSavePrompt, useForeignSaves } from '../../../comments/ForeignSaves';
import { MarkdownEditor } from '../../../editor/MarkdownEditor';
import { graphql } from '../../../gql';
import { Loaded } from '../../../lib/ui';
import { type SaveState, useContinuousSave } from './useContinuousSave';

const EditPageQuery = graphql(`
  query EditChangeRequestPage($spaceId: ID!, $changeRequest: String!, $path: String!) {
    space(id: $spaceId) {
      id
      changeRequest(id: $changeRequest) {
        id
        number
        subject
        status
        content {
          id
          pageList { id title path type }
          typedPage(path: $path) { id title type markdown }
        }
      }
    }
  }
`);

const WritePage = graphql(`
  mutation EditWritePage($spaceId: ID!, $changeRequestId: String!, $page: String!, $document: JSON!, $basedOn: String!) {
    writeChangeRequestContent(
      spaceId: $spaceId
      changeRequestId: $changeRequestId
      input: { changes: [{ operation: update_page, page: $page, document: $document }] }
      basedOn: $basedOn
    ) {
      revision
    }
  }
`);

const SAVE_LABELS: Record<SaveState, string> = {
  idle: 'No changes yet',
  saving: 'Saving…',
  saved: 'All changes saved',
  error: 'Not saved — retrying',
};

/** A page of a change request in the editor, saved into the change request as it is typed. */
export function PageEditor({ spaceId, number, path }: { spaceId: string; number: string; path: string }) {
  // Read once: the editor owns the text from then on (a refetch must not reset what is typed).
  const [{ data, error }, refetch] = useQuery({
    query: EditPageQuery,
    variables: { spaceId, changeRequest: number, path },
    requestPolicy: 'network-only',
  });
  return (
    <Loaded data={data} error={error}>
      {({ space: { changeRequest: cr } }) => {
        if (cr.status === 'merged' || cr.status === 'archived')
          return (
            <p role="alert">
              Change request #{cr.number} is {cr.status}: it can no longer be edited.
            </p>
          );
        const page = cr.content.typedPage;
        if (!page || page.markdown == null)
          return <p role="alert">There is no document page at this address in change request #{cr.number}.</p>;
        return (
          <EditingPage
            // Keyed by the revision too: a reload (after another person's save) starts from their text.
            key={`${cr.id}/${page.id}/${cr.content.id}`}
            spaceId={spaceId}
            changeRequest={{ id: cr.id, number: cr.number, subject: cr.subject, revision: cr.content.id }}
            page={{ id: page.id, title: page.title, markdown: page.markdown }}
            pages={cr.content.pageList.filter((p) => p.type === 'document')}
            onReload={() => refetch({ requestPolicy: 'network-only' })}
          />
        );
      }}
    </Loaded>
  );
}

function EditingPage({
  spaceId,
  changeRequest,
  page,
  pages,
  onReload,
}: {
  spaceId: string;
  changeRequest: { id: string; number: number; subject: string; revision: string };
  page: { id: string; title: string; markdown: string };
  pages: { id: string; title: string; path: string }[];
  onReload: () => void;
}) {
  const [, writePage] = useMutation(WritePage);
  // Another person's save holds ours until the person chooses: never overwritten silently.
  const foreign = useForeignSaves(spaceId, changeRequest.id, changeRequest.revision, onReload);
  const { guard, basedOn, saved, refused } = foreign;
  const write = useCallback(
    (markdown: string) =>
      guard(async () => {
        const result = await writePage({
          spaceId,
          changeRequestId: changeRequest.id,
          page: page.id,
          document: { markdown },
          basedOn: basedOn(),
        });
        const written = result.data?.writeChangeRequestContent;
        if (written && !result.error) saved(written.revision);
        const conflict = result.error?.graphQLErrors.find((e) => e.extensions.code === 'CONFLICT' && e.extensions.revision);
        if (conflict) await refused(conflict.extensions.revision as string);
        return !!written && !result.error;
      }),
    [guard, basedOn, saved, refused, writePage, spaceId, changeRequest.id, page.id],
  );
  const { state, change, flush } = useContinuousSave(write);
  return (
    <section className="page-editor">
      <p className="muted">
        Editing in{' '}
        <Link to={`/s/${spaceId}/~/changes/${changeRequest.number}`}>
          change request #{changeRequest.number} {changeRequest.subject}
        </Link>
      </p>
      <h1>{page.title}</h1>
      <p role="status" aria-live="polite" className={state === 'error' ? 'error' : 'muted'}>
        {SAVE_LABELS[state]}
      </p>
      <ForeignSavePrompt saves={foreign} />
      <CommentedPage spaceId={spaceId} changeRequest={changeRequest} pageId={page.id} bodySelector=".editor-content">
        {/* biome-ignore lint/a11y/noStaticElementInteractions: not an interaction: the focus leaving the editor saves at once */}
        <div onBlur={() => void flush()}>
          <MarkdownEditor markdown={page.markdown} onChange={change} pages={pages} showFields />
        </div>
      </CommentedPage>
    </section>
  );
}
