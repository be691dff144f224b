import { builder } from '../../graphql/builder.js';
import {
  CHALLENGE_PREFIX,
  getCustomHostname,
  removeCustomHostname,
  revalidateCustomHostname,
  type CustomHostnameView,
} from './hostname-service.js';

const SitePointerType = builder.objectRef<{ type: 'site'; site: string }>('SitePointer').implement({
  fields: (t) => ({ type: t.exposeString('type'), site: t.exposeID('site') }),
});

const HostnameVerificationType = builder.objectRef<{ type: string; name: string; value: string }>('HostnameVerification').implement({
  description: 'What proves ownership of a claimed hostname (Lectern’s addition): a DNS TXT record `name` holding `value`',
  fields: (t) => ({
    type: t.exposeString('type', { description: '"dns-txt"' }),
    name: t.exposeString('name'),
    value: t.exposeString('value'),
  }),
});

/** The official CustomHostname, for a site's custom hostname (proven) or its claim (pending). */
const CustomHostnameType = builder.objectRef<CustomHostnameView>('CustomHostname').implement({
  fields: (t) => ({
    object: t.string({ resolve: () => 'custom-hostname' }),
    hostname: t.exposeString('hostname'),
    target: t.field({ type: SitePointerType, resolve: (v) => ({ type: 'site' as const, site: v.site.id }) }),
    isActive: t.boolean({ description: 'Whether its ownership is proven (only then is it served)', resolve: (v) => v.claim === null }),
    status: t.string({
      // The official statuses know CNAME checks, not TXT ones: `dns_no_cname` stands for "the TXT
      // record is missing or wrong", `live` for a proven hostname.
      description: 'live: proven; dns_no_cname: the DNS TXT challenge is not (yet) published',
      resolve: (v) => (v.claim ? 'dns_no_cname' : 'live'),
    }),
    verification: t.field({
      type: HostnameVerificationType,
      nullable: true,
      description: 'While pending: the DNS TXT record that proves ownership',
      resolve: (v) => (v.claim ? { type: 'dns-txt', name: `${CHALLENGE_PREFIX}${v.claim.hostname}`, value: v.claim.token } : null),
    }),
    urls: t.field({
      type: builder
        .objectRef<{ location: string }>('CustomHostnameUrls')
        .implement({ fields: (u) => ({ location: u.exposeString('location') }) }),
      resolve: (v, _a, ctx) => ({ location: ctx.urls.customHostname(v.hostname) }),
    }),
  }),
});

builder.queryField('customHostname', (t) =>
  t.field({
    type: CustomHostnameType,
    description: "A custom hostname of a site of the caller's organizations (proven, or claimed and pending)",
    args: { hostname: t.arg.string({ required: true }) },
    resolve: (_r, { hostname }, ctx) => getCustomHostname(ctx, hostname),
  }),
);

builder.mutationFields((t) => ({
  revalidateCustomHostname: t.boolean({
    description: 'Check the DNS TXT record that proves ownership of a claimed hostname; proven, the site takes it',
    args: { hostname: t.arg.string({ required: true }) },
    resolve: (_r, { hostname }, ctx) => revalidateCustomHostname(ctx, hostname),
  }),
  removeCustomHostname: t.boolean({
    description: "Remove a site's custom hostname or claim; NOT_FOUND when there is none the caller sees",
    args: { hostname: t.arg.string({ required: true }) },
    resolve: (_r, { hostname }, ctx) => removeCustomHostname(ctx, hostname),
  }),
}));
