import { createHash } from 'node:crypto';

/**
 * The reader's HTML: one page with its header, sidebar (sections, variants, page tree), the page,
 * its outline, previous/next and footer; light and dark themes (the system's preference, and a
 * toggle kept in localStorage), a phone layout (the sidebar behind a "Menu" switch that needs no
 * script). The stylesheet and the one small script are inline and allowed by their hashes in a strict
 * Content-Security-Policy: no other script runs, nothing is loaded from elsewhere.
 * Every value from users goes through `esc`.
 */

export const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

const THEME_SCRIPT = `(function(){var d=document.documentElement,k='lectern-theme';if(d.hasAttribute('data-theme-fixed'))return;try{var t=localStorage.getItem(k);if(t==='light'||t==='dark')d.setAttribute('data-theme',t)}catch(e){}
document.addEventListener('DOMContentLoaded',function(){var b=document.getElementById('theme-toggle');if(!b)return;b.hidden=false;b.addEventListener('click',function(){var c=d.getAttribute('data-theme'),dark=c?c==='dark':matchMedia('(prefers-color-scheme: dark)').matches,n=dark?'light':'dark';d.setAttribute('data-theme',n);try{localStorage.setItem(k,n)}catch(e){}})})})();`;

const LIGHT = `--bg:#fff;--fg:#1b1f24;--muted:#5b6470;--border:#e3e6ea;--soft:#f5f7f9;--code:#f3f4f6;--hl-k:#a626a4;--hl-s:#387a39;--hl-n:#875f00;--hl-c:#646b74;--hl-t:#3066d8;--hl-a:#c0392b`;
const DARK = `--bg:#111418;--fg:#e6e8eb;--muted:#9aa3ad;--border:#2a3038;--soft:#181c21;--code:#1b2027;--hl-k:#c678dd;--hl-s:#98c379;--hl-n:#d19a66;--hl-c:#7f8892;--hl-t:#61afef;--hl-a:#e06c75`;

/**
 * Text in the primary color (links, the current page) made readable: mixed toward black (light
 * theme) or white (dark) just enough for a 4.6:1 contrast on the theme's softest background
 * (WCAG AA; the browser test's axe check). Backgrounds and borders keep the color as chosen.
 */
function readable(hex: string, bg: string, toward: 0 | 255): string {
  const digits = hex.slice(1);
  const full = digits.length <= 4 ? [...digits.slice(0, 3)].map((d) => d + d).join('') : digits.slice(0, 6);
  const rgb = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
  const lum = (c: number[]) =>
    c
      .map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4))
      .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i]!, 0);
  const back = lum([0, 2, 4].map((i) => parseInt(bg.slice(1 + i, 3 + i), 16)));
  for (let t = 0; t <= 1; t += 0.05) {
    const mixed = rgb.map((v) => Math.round(v + (toward - v) * t));
    const [a, b] = [lum(mixed), back].sort((x, y) => y - x);
    if ((a! + 0.05) / (b! + 0.05) >= 4.6) return `#${mixed.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  }
  return toward ? '#ffffff' : '#000000';
}

function stylesheet(primary: { light: string; dark: string }): string {
  const color = (c: string) => (/^#[0-9a-fA-F]{3,8}$/.test(c) ? c : '#346DDB');
  const dark = `--primary:${color(primary.dark)};--link:${readable(color(primary.dark), '#1b2027', 255)}`;
  return `:root{${LIGHT};--primary:${color(primary.light)};--link:${readable(color(primary.light), '#f3f4f6', 0)};color-scheme:light}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){${DARK};${dark};color-scheme:dark}}
:root[data-theme=dark]{${DARK};${dark};color-scheme:dark}
*{box-sizing:border-box}html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.65 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
a{color:var(--link)}a:hover{text-decoration:underline}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}.skip{position:absolute;left:-9999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px 8px;z-index:10}
header.top{position:sticky;top:0;z-index:5;display:flex;align-items:center;gap:16px;padding:10px 20px;border-bottom:1px solid var(--border);background:var(--bg)}
header.top .brand{display:flex;align-items:center;gap:10px;font-weight:650;font-size:1.05rem;color:var(--fg);text-decoration:none}
header.top .logo{width:28px;height:28px;border-radius:6px;background:var(--primary);color:#fff;display:grid;place-items:center;font-size:.9rem}
header.top nav.links{display:flex;gap:14px;margin-left:auto}header.top nav.links a{color:var(--muted);text-decoration:none}
#theme-toggle{margin-left:auto;border:1px solid var(--border);background:var(--soft);color:var(--fg);border-radius:6px;padding:4px 10px;cursor:pointer;font:inherit;font-size:.85rem}
nav.links+#theme-toggle{margin-left:0}
.menu-label{display:none;cursor:pointer;border:1px solid var(--border);border-radius:6px;padding:2px 10px;font-size:.9rem}
#menu-switch{position:absolute;opacity:0;pointer-events:none}
.layout{display:grid;grid-template-columns:270px minmax(0,1fr) 220px;gap:32px;max-width:1400px;margin:0 auto;padding:0 20px}
aside.sidebar{position:sticky;top:56px;align-self:start;max-height:calc(100vh - 56px);overflow:auto;padding:20px 4px 40px 0;font-size:.93rem}
.sidebar ul{list-style:none;margin:0;padding:0}.sidebar li ul{padding-left:14px;border-left:1px solid var(--border);margin-left:6px}
.sidebar a{display:block;padding:3px 8px;border-radius:6px;color:var(--fg);text-decoration:none}.sidebar a:hover{background:var(--soft)}
.sidebar li.closed>a::after{content:" \\203A";content:" \\203A"/"";color:var(--muted)}.sidebar a[aria-current=page]{background:var(--soft);color:var(--link);font-weight:600}
.sidebar .group-title{margin:16px 8px 4px;font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);font-weight:650}
.sections{margin-bottom:14px;padding-bottom:12px;border-bottom:1px solid var(--border)}
.variants{margin-bottom:14px}.variants summary{cursor:pointer;border:1px solid var(--border);border-radius:6px;padding:4px 10px;list-style:none}
.variants summary::after{content:" \\25BE";color:var(--muted)}.variants ul{margin-top:4px;border:1px solid var(--border);border-radius:6px;padding:4px}
main{min-width:0;padding:28px 0 60px}
main h1.title{font-size:2.1rem;line-height:1.2;margin:0 0 8px}.description{color:var(--muted);font-size:1.1rem;margin:0 0 24px}
.breadcrumbs{font-size:.85rem;color:var(--muted);margin-bottom:6px}
.content h1,.content h2,.content h3,.content h4{line-height:1.3;margin:1.8em 0 .6em;scroll-margin-top:70px}
.content .anchor{margin-left:8px;color:var(--muted);text-decoration:none;opacity:0;font-weight:400}.content :is(h1,h2,h3,h4,h5,h6):hover .anchor,.content .anchor:focus{opacity:1}
.content img{max-width:100%;height:auto;border-radius:6px}
.content code{background:var(--code);padding:.1em .35em;border-radius:4px;font:.88em/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.content pre{background:var(--code);padding:14px 16px;border-radius:8px;overflow:auto;border:1px solid var(--border)}.content pre code{background:none;padding:0}
.table-wrap{overflow-x:auto}.content table{border-collapse:collapse;min-width:50%}.content th,.content td{border:1px solid var(--border);padding:6px 12px;text-align:left}.content th{background:var(--soft)}
.content blockquote{margin:1em 0;padding:2px 16px;border-left:3px solid var(--border);color:var(--muted)}
.content li.task-list-item{list-style:none}.content li.task-list-item input{margin:0 .5em 0 -1.4em}
.hint{margin:1.2em 0;padding:10px 16px;border-radius:8px;border:1px solid var(--border);border-left:4px solid var(--primary);background:var(--soft)}
.hint-success{border-left-color:#00a846}.hint-warning{border-left-color:#e08a00}.hint-danger{border-left-color:#e5383b}.hint>:first-child{margin-top:4px}.hint>:last-child{margin-bottom:4px}
.broken-link{text-decoration:underline wavy #e5383b;font-style:normal;cursor:help}
.hljs-keyword,.hljs-selector-tag,.hljs-built_in{color:var(--hl-k)}.hljs-string,.hljs-regexp,.hljs-addition{color:var(--hl-s)}.hljs-number,.hljs-literal{color:var(--hl-n)}
.hljs-comment,.hljs-quote{color:var(--hl-c);font-style:italic}.hljs-title,.hljs-function,.hljs-section{color:var(--hl-t)}.hljs-attr,.hljs-attribute,.hljs-variable,.hljs-name,.hljs-tag,.hljs-deletion{color:var(--hl-a)}
aside.outline{position:sticky;top:56px;align-self:start;padding:28px 0;font-size:.85rem}
.outline h2{font-size:.75rem;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);margin:0 0 8px}.outline ul{list-style:none;margin:0;padding:0}
.outline a{display:block;color:var(--muted);text-decoration:none;padding:2px 0}.outline a:hover{color:var(--link)}.outline .d3{padding-left:12px}
nav.pager{display:flex;gap:16px;margin-top:48px}.pager a{flex:1;border:1px solid var(--border);border-radius:8px;padding:10px 14px;text-decoration:none;color:var(--fg)}
.feedback{margin-top:40px}.feedback fieldset{border:1px solid var(--border);border-radius:8px;padding:10px 14px;display:flex;flex-wrap:wrap;gap:8px;align-items:center}.feedback legend{padding:0 4px;color:var(--muted)}.feedback button{font:inherit;border:1px solid var(--border);border-radius:6px;background:var(--bg);color:var(--fg);padding:4px 12px;cursor:pointer}.feedback button:hover,.feedback button:focus{border-color:var(--primary)}
.pager a:hover{border-color:var(--primary)}.pager small{display:block;color:var(--muted)}.pager .next{text-align:right}
footer.bottom{border-top:1px solid var(--border);padding:20px;color:var(--muted);font-size:.85rem;display:flex;flex-wrap:wrap;gap:24px;justify-content:space-between}
footer.bottom a{color:var(--muted)}
.notice{max-width:640px;margin:12vh auto;padding:0 20px;text-align:center}
header.top img.logo-img{height:28px;width:auto}header.top img.logo-dark{display:none}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]) header.top img.logo-light{display:none}:root:not([data-theme=light]) header.top img.logo-dark{display:inline}}
:root[data-theme=dark] header.top img.logo-light{display:none}:root[data-theme=dark] header.top img.logo-dark{display:inline}
form.search{display:flex;margin-left:auto}form.search input,form.search-page input[type=search]{border:1px solid var(--border);background:var(--soft);color:var(--fg);border-radius:6px;padding:4px 10px;font:inherit;font-size:.9rem;width:14em;max-width:40vw}
form.search+nav.links,form.search~#theme-toggle{margin-left:0}form.search button,form.search-page button{border:1px solid var(--border);background:var(--soft);color:var(--fg);border-radius:6px;padding:4px 10px;margin-left:4px;font:inherit;font-size:.9rem;cursor:pointer}
form.search-page{margin:0 0 16px}form.search-page input[type=search]{width:24em;max-width:70vw}form.search-page .scope{display:block;margin-top:6px;color:var(--muted);font-size:.9rem}
.results{list-style:none;padding:0}.results .result{margin:0 0 18px}.result-title{font-weight:600;font-size:1.05rem}.results p{margin:2px 0;color:var(--muted)}.result-sections{list-style:none;padding-left:14px;border-left:2px solid var(--border)}
.result-space h2{font-size:1rem;color:var(--muted);margin:24px 0 8px}
.announcement{padding:8px 20px;text-align:center;background:var(--soft);border-bottom:3px solid var(--primary)}.announcement-warning{border-bottom-color:#e08a00}.announcement-danger{border-bottom-color:#e5383b}.announcement-success{border-bottom-color:#00a846}
footer.bottom .copyright{flex-basis:100%}
.feedback{margin-top:40px;padding-top:14px;border-top:1px solid var(--border);color:var(--muted);font-size:.9rem}.feedback a{margin-left:10px}
@media (max-width:1100px){.layout{grid-template-columns:250px minmax(0,1fr)}aside.outline{display:none}}
@media (max-width:760px){.layout{display:block}.menu-label{display:inline-block}aside.sidebar{display:none;position:static;max-height:none;border-bottom:1px solid var(--border)}
#menu-switch:checked~.layout aside.sidebar{display:block}header.top{padding:8px 14px;flex-wrap:wrap;row-gap:8px}header.top form.search{order:1;flex:1 0 100%;margin-left:0}header.top form.search input{flex:1;width:auto;max-width:none}header.top #theme-toggle{margin-left:auto}main h1.title{font-size:1.7rem}nav.pager{flex-direction:column}}`;
}

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const SCRIPT_HASH = hash(THEME_SCRIPT);
const styles = new Map<string, { css: string; hash: string }>();
function styleFor(primary: { light: string; dark: string }) {
  const key = `${primary.light}|${primary.dark}`;
  let style = styles.get(key);
  if (!style) {
    const css = stylesheet(primary);
    style = { css, hash: hash(css) };
    if (styles.size > 1000) styles.clear();
    styles.set(key, style);
  }
  return style;
}

export interface Shell {
  lang: string;
  title: string;
  siteTitle: string;
  description?: string;
  primary: { light: string; dark: string };
  /** The site's URL as the request named it ('' at its custom hostname: links relative to `/`). */
  base: string;
  canonical?: string;
  noindex: boolean;
  headerLinks: { title: string; url: string }[];
  footerGroups: { title: string; links: { title: string; url: string }[] }[];
  markdownUrl?: string;
  trademark: boolean;
  /** The site's logo (header.logo): an image instead of the initial. */
  logo?: { light: string; dark: string };
  /** favicon: an image per theme, or an emoji. */
  favicon?: { light?: string; dark?: string; emoji?: string };
  announcement?: { message: string; style: string; link?: { title: string; url: string } };
  /** The theme the site opens in ('system': the visitor's preference) and whether visitors may switch. */
  theme?: { default: string; toggeable: boolean };
  copyright?: string;
  /** The URL the header's search box sends `q` to (a page of the site: its results are searched from it). */
  searchAction?: string;
  searchQuery?: string;
}

/** The headers of every HTML answer: its Content-Security-Policy allows only its own style and script. */
export function htmlHeaders(shell: Shell): Record<string, string> {
  const style = styleFor(shell.primary);
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src ${style.hash}; script-src ${SCRIPT_HASH}; img-src 'self' https: data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'x-frame-options': 'DENY',
  };
}

/** A whole HTML document around `body` (already-escaped HTML). */
export function documentHtml(shell: Shell, body: string, withMenu: boolean): string {
  const style = styleFor(shell.primary);
  const links = shell.headerLinks.length
    ? `<nav class="links" aria-label="Links">${shell.headerLinks.map((l) => `<a href="${esc(l.url)}">${esc(l.title)}</a>`).join('')}</nav>`
    : '';
  const footerGroups = shell.footerGroups
    .map(
      (g) =>
        `<div><strong>${esc(g.title)}</strong>${g.links.map((l) => `<div><a href="${esc(l.url)}">${esc(l.title)}</a></div>`).join('')}</div>`,
    )
    .join('');
  const theme = shell.theme ?? { default: 'system', toggeable: true };
  const fixed =
    theme.default === 'light' || theme.default === 'dark'
      ? ` data-theme="${theme.default}"${theme.toggeable ? '' : ' data-theme-fixed=""'}`
      : theme.toggeable
        ? ''
        : ' data-theme-fixed=""';
  const brand = shell.logo
    ? `<img class="logo-img logo-light" src="${esc(shell.logo.light)}" alt="${esc(shell.siteTitle)}"><img class="logo-img logo-dark" src="${esc(shell.logo.dark)}" alt="">`
    : `<span class="logo" aria-hidden="true">${esc([...shell.siteTitle.trim()][0]?.toUpperCase() ?? 'D')}</span><span>${esc(shell.siteTitle)}</span>`;
  const search = shell.searchAction
    ? `<form class="search" role="search" method="get" action="${esc(shell.searchAction)}"><input type="search" name="q" value="${esc(shell.searchQuery ?? '')}" placeholder="Search…" aria-label="Search this site" maxlength="512" required><button type="submit">Search</button></form>`
    : '';
  const a = shell.announcement;
  const announcement = a
    ? `<div class="announcement announcement-${esc(a.style)}" role="note">${esc(a.message)}${a.link ? ` <a href="${esc(a.link.url)}">${esc(a.link.title)}</a>` : ''}</div>`
    : '';
  return `<!doctype html>
<html lang="${esc(shell.lang)}"${fixed}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(shell.title)}</title>
${shell.description ? `<meta name="description" content="${esc(shell.description)}">` : ''}
${shell.noindex ? '<meta name="robots" content="noindex">' : ''}
${shell.canonical ? `<link rel="canonical" href="${esc(shell.canonical)}">` : ''}
${shell.markdownUrl ? `<link rel="alternate" type="text/markdown" href="${esc(shell.markdownUrl)}">` : ''}
${faviconLinks(shell)}
<style>${style.css}</style><script>${THEME_SCRIPT}</script></head>
<body><a class="skip" href="#content">Skip to content</a>
${withMenu ? '<input type="checkbox" id="menu-switch" aria-label="Show the navigation">' : ''}
${announcement}<header class="top">${withMenu ? '<label class="menu-label" for="menu-switch">Menu</label>' : ''}<a class="brand" href="${esc(shell.base || '/')}">${brand}</a>${search}${links}${
    theme.toggeable ? '<button type="button" id="theme-toggle" hidden>Light / dark</button>' : ''
  }</header>
${body}
<footer class="bottom">${footerGroups}<div>${shell.trademark ? 'Published with Lectern' : ''}</div>${shell.copyright ? `<div class="copyright">${esc(shell.copyright)}</div>` : ''}</footer>
</body></html>`;
}

/** The favicon: the site's images (one per color scheme), an emoji drawn as SVG, or none (no request for /favicon.ico). */
function faviconLinks(shell: Shell): string {
  const f = shell.favicon;
  if (f?.light || f?.dark) {
    const light = f.light || f.dark!;
    const dark = f.dark || f.light!;
    return light === dark
      ? `<link rel="icon" href="${esc(light)}">`
      : `<link rel="icon" href="${esc(light)}" media="(prefers-color-scheme: light)"><link rel="icon" href="${esc(dark)}" media="(prefers-color-scheme: dark)">`;
  }
  if (f?.emoji) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><text y=".9em" font-size="90">${esc(f.emoji)}</text></svg>`;
    return `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(svg)}">`;
  }
  return '<link rel="icon" href="data:,">';
}

export function noticeHtml(shell: Shell, heading: string, message: string): string {
  return documentHtml(
    shell,
    `<main id="content" class="notice"><h1>${esc(heading)}</h1><p>${esc(message)}</p><p><a href="${esc(shell.base || '/')}">Go to the site’s home page</a></p></main>`,
    false,
  );
}
