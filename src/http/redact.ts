/**
 * Request paths as they may be logged: path segments that are secrets are replaced by `[redacted]`.
 * - `/exports/<id>.pdf`: the export id is the capability to read the PDF;
 * - `…/invites/<code>` and `…/link-invites/<code>` (`POST /v1/orgs/{id}/invites/{inviteId}` joins
 *   with it; admins address links by it): an invite link's code.
 * Share keys (`?shareKey=`, `?share=`) and file URL tokens (`?token=`) travel in query strings,
 * which are never logged. Works on raw (percent-encoded) and decoded paths alike: segments are
 * recognized by their position, not their content.
 */
const SECRET_AFTER = new Set(['invites', 'link-invites']);
const REDACTED = '[redacted]';

export function redactPath(pathname: string): string {
  const segments = pathname.split('/');
  for (let i = 1; i < segments.length; i++) {
    const previous = segments[i - 1]!.toLowerCase();
    if (!segments[i]) continue;
    if (previous === 'exports' && i === 2) segments[i] = /\.pdf$/i.test(segments[i]!) ? `${REDACTED}.pdf` : REDACTED;
    else if (SECRET_AFTER.has(previous)) segments[i] = REDACTED;
  }
  return segments.join('/');
}
