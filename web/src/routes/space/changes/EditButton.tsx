import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useClient, useMutation } from 'urql';
import { graphql } from '../../../gql';
import { errorMessage } from '../../../lib/client';

const Viewer = graphql(`
  query EditViewer {
    viewer { id }
  }
`);

const OpenChangeRequests = graphql(`
  query EditOpenChangeRequests($spaceId: ID!, $creator: String!) {
    space(id: $spaceId) {
      id
      changeRequestList(status: "open", creator: $creator, limit: 1) { items { id number } }
    }
  }
`);

const CreateChangeRequest = graphql(`
  mutation EditCreateChangeRequest($spaceId: ID!, $subject: String) {
    createChangeRequest(spaceId: $spaceId, input: { subject: $subject }) { id number }
  }
`);

/** Where a page of a change request is edited in the app. */
export const editPath = (spaceId: string, number: number | string, pagePath: string) =>
  `/s/${spaceId}/~/changes/${number}/edit/${pagePath}`;

/**
 * "Edit" on a page: continues the signed-in person's open change request on the space, or starts
 * one, and opens the page's editor inside it. Main is never written from the app.
 */
export function EditButton({ spaceId, pagePath, pageTitle }: { spaceId: string; pagePath: string; pageTitle?: string }) {
  const client = useClient();
  const navigate = useNavigate();
  const [, create] = useMutation(CreateChangeRequest);
  const [state, setState] = useState<{ busy: boolean; error?: string | null }>({ busy: false });

  const edit = async () => {
    setState({ busy: true });
    const viewer = await client.query(Viewer, {}).toPromise();
    const open =
      viewer.data &&
      (await client.query(OpenChangeRequests, { spaceId, creator: viewer.data.viewer.id }, { requestPolicy: 'network-only' }).toPromise());
    if (!open?.data)
      return setState({ busy: false, error: errorMessage(open?.error ?? viewer.error) ?? 'The change requests could not be read' });
    const mine = open.data.space.changeRequestList.items[0];
    if (mine) return navigate(editPath(spaceId, mine.number, pagePath));
    const created = await create({ spaceId, subject: pageTitle ? `Edit ${pageTitle}` : 'Edits' });
    if (created.error || !created.data)
      return setState({ busy: false, error: errorMessage(created.error) ?? 'The change request could not be created' });
    navigate(editPath(spaceId, created.data.createChangeRequest.number, pagePath));
  };

  return (
    <div className="edit-action">
      <button type="button" onClick={edit} disabled={state.busy} aria-busy={state.busy}>
        Edit
      </button>
      {state.error && (
        <p role="alert" className="error">
          {state.error}
        </p>
      )}
    </div>
  );
}
