/** Every absolute URL Lectern hands out is built here, from LECTERN_PUBLIC_URL. */
export function createUrls(publicUrl: string) {
  const api = (p: string) => `${publicUrl}/v1${p}`;
  const app = (p: string) => `${publicUrl}/app${p}`;
  return {
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
    /**
     * File bytes, addressed by content hash (unguessable): served without a token, like a signed URL.
     * The declared content type rides along (the blob itself is bytes only; equal bytes are shared).
     */
    fileDownload: (blob: string, name: string, contentType?: string) =>
      `${publicUrl}/files/${blob}/${encodeURIComponent(name)}${contentType ? `?type=${encodeURIComponent(contentType)}` : ''}`,
    pdfExport: (id: string) => `${publicUrl}/exports/${id}.pdf`,
  };
}

export type Urls = ReturnType<typeof createUrls>;
