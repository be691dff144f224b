/** Every absolute URL Lectern hands out is built here, from LECTERN_PUBLIC_URL. */
export function createUrls(publicUrl: string) {
  const api = (p: string) => `${publicUrl}/v1${p}`;
  const app = (p: string) => `${publicUrl}/app${p}`;
  return {
    /** The absolute URL of a path below /v1. */
    api,
    user: (id: string) => ({ location: api(`/users/${id}`) }),
    organization: (id: string) => ({ location: api(`/orgs/${id}`), app: app(`/o/${id}`) }),
    space: (id: string) => ({ location: api(`/spaces/${id}`), app: app(`/s/${id}`) }),
    publishedSpace: (orgHostname: string | null, id: string) => `${publicUrl}/public/${orgHostname ?? 'o'}/s/${id}`,
    collection: (id: string) => ({ location: api(`/collections/${id}`), app: app(`/collections/${id}`) }),
    revision: (spaceId: string, revisionId: string) => ({ app: app(`/s/${spaceId}/~/revisions/${revisionId}`) }),
    page: (spaceId: string, path: string) => ({ app: app(`/s/${spaceId}/${path}`) }),
    changeRequest: (spaceId: string, id: string, number: number) => ({
      location: api(`/spaces/${spaceId}/change-requests/${id}`),
      app: app(`/s/${spaceId}/~/changes/${number}`),
    }),
    /** A comment on a space's main content, or on a change request when `changeRequestId` is set. */
    comment: (spaceId: string, changeRequestId: string | null, id: string) => ({
      location: api(`/spaces/${spaceId}${changeRequestId ? `/change-requests/${changeRequestId}` : ''}/comments/${id}`),
    }),
    commentReply: (spaceId: string, changeRequestId: string | null, commentId: string, id: string) => ({
      location: api(
        `/spaces/${spaceId}${changeRequestId ? `/change-requests/${changeRequestId}` : ''}/comments/${commentId}/replies/${id}`,
      ),
    }),
    /** A file of a space, served without a token while its signed query is valid (src/file-urls.ts builds and checks it). */
    fileDownload: (spaceId: string, fileId: string, name: string, query: { expires: number; token: string }) =>
      `${publicUrl}/files/${encodeURIComponent(spaceId)}/${encodeURIComponent(fileId)}/${encodeURIComponent(name)}?expires=${query.expires}&token=${query.token}`,
    pdfExport: (id: string) => `${publicUrl}/exports/${id}.pdf`,
    /** `preview`: the application's view of the site as it would be published (members see it, published or not). */
    site: (organizationId: string, id: string) => ({
      location: api(`/orgs/${organizationId}/sites/${id}`),
      app: app(`/o/${organizationId}/sites/${id}`),
      preview: app(`/o/${organizationId}/sites/${id}/preview`),
    }),
    /**
     * Where a site (or a page of it: `path` segments) is published: on its proxy origin or custom
     * hostname when set, else on this server, `/public/<org hostname or id>/sites/<basename or id>`.
     * `shareKey` (share-link sites) rides along as `?share=`.
     */
    publishedSite: (
      site: { id: string; organizationId: string; hostname: string | null; basename: string | null; proxy: string | null },
      orgHostname: string | null,
      opts: { path?: string[]; shareKey?: string | null } = {},
    ) => {
      const base = site.proxy
        ? `https://${site.proxy}`
        : site.hostname
          ? `https://${site.hostname}`
          : `${publicUrl}/public/${encodeURIComponent(orgHostname ?? site.organizationId)}/sites/${encodeURIComponent(site.basename ?? site.id)}`;
      const path = (opts.path ?? [])
        .filter(Boolean)
        .map((p) => p.split('/').map(encodeURIComponent).join('/'))
        .join('/');
      return `${base}${path ? `/${path}` : ''}${opts.shareKey ? `?share=${encodeURIComponent(opts.shareKey)}` : ''}`;
    },
    samlProvider: (organizationId: string, id: string) => ({ location: api(`/orgs/${organizationId}/saml/${id}`) }),
    customHostname: (hostname: string) => api(`/custom-hostnames/${encodeURIComponent(hostname)}`),
    /**
     * Lectern's service-provider side of one SAML provider (served outside /v1, without a token):
     * the entity id is also where its metadata is served.
     */
    samlService: (id: string) => ({
      entityID: `${publicUrl}/sso/saml/${id}/metadata`,
      acsURL: `${publicUrl}/sso/saml/${id}/acs`,
      startURL: `${publicUrl}/sso/saml/${id}/start`,
    }),
    openAPISpec: (organizationId: string, slug: string) => ({
      location: api(`/orgs/${organizationId}/openapi/${slug}`),
      app: app(`/o/${organizationId}/openapi/${slug}`),
    }),
    openAPISpecVersion: (organizationId: string, slug: string, id: string) => ({
      location: api(`/orgs/${organizationId}/openapi/${slug}/versions/${id}`),
    }),
    /**
     * Spec texts served outside /v1 (src/modules/openapi/http.ts): a spec's latest processed
     * version (its `urls.published` while public), and one version's text.
     */
    openAPIPublished: (organizationId: string, slug: string) => `${publicUrl}/openapi/${organizationId}/${slug}`,
    openAPIVersionText: (organizationId: string, slug: string, id: string) =>
      `${publicUrl}/openapi/${organizationId}/${slug}/versions/${id}`,
    conversation: (organizationId: string, id: string) => ({ location: api(`/orgs/${organizationId}/conversations/${id}`) }),
    conversationIssue: (organizationId: string, id: string) => ({ location: api(`/orgs/${organizationId}/conversations-issues/${id}`) }),
    issuesCluster: (organizationId: string, id: string) => ({
      location: api(`/orgs/${organizationId}/conversations-clusters/${id}`),
      app: app(`/o/${organizationId}/conversations/clusters/${id}`),
    }),
    translation: (organizationId: string, id: string) => ({ location: api(`/orgs/${organizationId}/translations/${id}`) }),
    agentInstructions: (organizationId: string) => ({ location: api(`/orgs/${organizationId}/agent-instructions`) }),
  };
}

export type Urls = ReturnType<typeof createUrls>;
