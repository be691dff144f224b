import { lazy, Suspense, useEffect, useMemo } from 'react';
import { Link, Navigate, useParams } from 'react-router';
import { useQuery, useSubscription } from 'urql';
import { graphql } from '../../gql';
import { Loaded, VisibilityBadge } from '../../lib/ui';
import { useCurrentOrg } from '../Layout';
import { emojiOf } from '../org/SpaceList';
import { EditButton } from './changes/EditButton';
import { buildTree } from './PageTree';
import { PageView } from './PageView';
import { RevisionList } from './RevisionList';
import { RevisionView } from './RevisionView';
import { SpacePermissions } from './SpacePermissions';
import { SpacePageTree } from './tree/ChangeRequestTree';

// The editor (Tiptap, CodeMirror) and the diff are loaded when a change request is opened, so
// reading pages downloads neither.
const ChangeRequestScreen = lazy(() => import('./changes/ChangeRequestScreen').then((m) => ({ default: m.ChangeRequestScreen })));
const PageEditor = lazy(() => import('./changes/PageEditor').then((m) => ({ default: m.PageEditor })));

const SpaceQuery = graphql(`
  query SpaceScreen($id: ID!) {
    space(id: $id) {
      id
      title
      emoji
      visibility
      organization
      owningOrganization { id title }
      urls { app published }
      permissions { admin edit }
      content { id pageList { id parent path title type depth } }
    }
  }
`);

const SpaceContentEvents = graphql(`
  subscription SpaceContentEvents($spaceId: ID!) {
    spaceContentEvents(spaceId: $spaceId) { action revision { id } }
  }
`);

/** What the path below `/s/SPACE/` names: a page, the revision history, a revision or a change request. */
type SpaceView =
  | { kind: 'page'; path: string }
  | { kind: 'revisions' }
  | { kind: 'permissions' }
  | { kind: 'revision'; id: string }
  | { kind: 'change'; number: string }
  | { kind: 'edit'; number: string; path: string };

function viewOf(rest: string): SpaceView {
  const parts = rest.split('/').filter(Boolean);
  if (parts[0] === '~') {
    if (parts[1] === 'revisions' && parts[2]) return { kind: 'revision', id: parts[2] };
    if (parts[1] === 'revisions') return { kind: 'revisions' };
    if (parts[1] === 'permissions') return { kind: 'permissions' };
    if (parts[1] === 'changes' && parts[2] && parts[3] === 'edit')
      return { kind: 'edit', number: parts[2], path: parts.slice(4).join('/') };
    if (parts[1] === 'changes' && parts[2]) return { kind: 'change', number: parts[2] };
  }
  return { kind: 'page', path: parts.join('/') };
}

/**
 * A space: its page tree beside the page, revision or change request its URL names. The tree and
 * the page follow the space's main content live (spaceContentEvents over SSE).
 */
export function Space() {
  const { spaceId = '', '*': rest = '' } = useParams();
  const view = viewOf(rest);
  const [{ data, error }, refetch] = useQuery({ query: SpaceQuery, variables: { id: spaceId } });
  const [live] = useSubscription({ query: SpaceContentEvents, variables: { spaceId } });
  useEffect(() => {
    if (live.data) refetch({ requestPolicy: 'network-only' });
  }, [live.data, refetch]);
  useCurrentOrg(data?.space.organization);
  const tree = useMemo(() => buildTree(data?.space.content.pageList ?? []), [data]);

  return (
    <Loaded data={data} error={error}>
      {({ space }) => {
        if (view.kind === 'page' && !view.path) {
          const first = space.content.pageList.find((p) => p.type === 'document');
          if (first) return <Navigate to={`/s/${space.id}/${first.path}`} replace />;
        }
        return (
          <div className="space-layout">
            <nav className="space-sidebar" aria-label="Pages">
              <p className="space-title">
                <Link to={`/o/${space.organization}`} className="muted">
                  {space.owningOrganization.title}
                </Link>
              </p>
              {/* The screen's one h1 is the page's (or the revision's); the space's title heads the sidebar. */}
              <h2 className="space-heading">
                {space.emoji && <span aria-hidden="true">{emojiOf(space.emoji)} </span>}
                {space.title || 'Untitled space'}
              </h2>
              <p>
                <VisibilityBadge visibility={space.visibility} />
              </p>
              <SpacePageTree
                spaceId={space.id}
                roots={tree}
                currentPath={view.kind === 'page' || view.kind === 'edit' ? view.path : null}
                changeRequest={view.kind === 'change' || view.kind === 'edit' ? view.number : undefined}
              />
              <p>
                <Link to={`/s/${space.id}/~/revisions`}>History</Link>
                {' · '}
                <Link to={`/s/${space.id}/~/changes`}>Change requests</Link>
                {space.permissions.admin && (
                  <>
                    {' · '}
                    <Link to={`/s/${space.id}/~/permissions`}>Permissions</Link>
                  </>
                )}
              </p>
            </nav>
            <div className="space-content">
              {view.kind === 'page' && view.path && space.permissions.edit && (
                <EditButton
                  spaceId={space.id}
                  pagePath={view.path}
                  pageTitle={space.content.pageList.find((p) => p.path === view.path)?.title}
                />
              )}
              {view.kind === 'page' && view.path && <PageView spaceId={space.id} path={view.path} revision={space.content.id} />}
              {view.kind === 'page' && !view.path && <p>This space has no pages yet.</p>}
              {view.kind === 'revisions' && <RevisionList spaceId={space.id} />}
              {view.kind === 'permissions' && <SpacePermissions spaceId={space.id} />}
              {view.kind === 'revision' && <RevisionView spaceId={space.id} revisionId={view.id} />}
              <Suspense fallback={<p className="muted">Loading…</p>}>
                {view.kind === 'change' && <ChangeRequestScreen spaceId={space.id} number={view.number} />}
                {view.kind === 'edit' && <PageEditor spaceId={space.id} number={view.number} path={view.path} />}
              </Suspense>
            </div>
          </div>
        );
      }}
    </Loaded>
  );
}
