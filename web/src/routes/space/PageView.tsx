import { useEffect, useRef, type MouseEvent } from 'react';
import { useNavigate } from 'react-router';
import { useQuery } from 'urql';
import { CommentedPage } from '../../comments/CommentedPage';
import { graphql } from '../../gql';
import { appPath } from '../../lib/paths';
import { Loaded } from '../../lib/ui';
import { emojiOf } from '../org/SpaceList';

const PageQuery = graphql(`
  query SpacePage($id: ID!, $path: String!) {
    space(id: $id) {
      id
      page(path: $path) { id title description emoji type html ancestors { id title } }
    }
  }
`);

/**
 * A page as the published site renders it: `html` comes from the site's own renderer on the server
 * (user content escaped there), so it is set as HTML here. Links into the app stay in the app.
 */
export function PageView({ spaceId, path, revision }: { spaceId: string; path: string; revision: string }) {
  const navigate = useNavigate();
  // `revision` in the variables' key: a new main revision reads the page again.
  const [{ data, error }, refetch] = useQuery({ query: PageQuery, variables: { id: spaceId, path } });
  const first = useRef(true);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new revision of main is what makes the page read again
  useEffect(() => {
    if (first.current) first.current = false;
    else refetch({ requestPolicy: 'network-only' });
  }, [revision, refetch]);

  const followLink = (event: MouseEvent<HTMLElement>) => {
    const anchor = (event.target as HTMLElement).closest('a');
    if (!anchor || event.metaKey || event.ctrlKey || event.shiftKey || anchor.target) return;
    const href = anchor.getAttribute('href') ?? '';
    const path = appPath(href);
    if (path !== href && path.startsWith('/')) {
      event.preventDefault();
      navigate(path);
    }
  };

  return (
    <Loaded data={data} error={error}>
      {({ space }) =>
        space.page ? (
          <CommentedPage spaceId={spaceId} pageId={space.page.id} bodySelector=".page-body">
            <article className="page">
              {space.page.ancestors.length > 0 && (
                <p className="muted breadcrumbs">{space.page.ancestors.map((a) => a.title).join(' / ')}</p>
              )}
              <h1>
                {space.page.emoji && <span aria-hidden="true">{emojiOf(space.page.emoji)} </span>}
                {space.page.title}
              </h1>
              {space.page.description && <p className="lead">{space.page.description}</p>}
              {space.page.html != null && (
                // biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: the click is a link's, delegated (Enter on a focused link clicks it too)
                // biome-ignore lint/security/noDangerouslySetInnerHtml: the site's renderer on the server made this HTML and escaped the user's content
                <div className="page-body" onClick={followLink} dangerouslySetInnerHTML={{ __html: space.page.html }} />
              )}
            </article>
          </CommentedPage>
        ) : (
          <p role="alert">There is no page at this address in this space.</p>
        )
      }
    </Loaded>
  );
}
