import { Readable } from 'node:stream';
import { settings, type Settings } from '../../config.js';
import { createGunzip } from 'node:zlib';
import { posix } from 'node:path';
// yauzl and tar-stream load with the first archive read (a server that never imports keeps neither).
import type yauzl from 'yauzl';
import YAML from 'yaml';
import type { RepoFile } from '../git-sync/index.js';

/**
 * Reading an uploaded archive into files, safely: `.zip` with yauzl (validates entry names and that
 * each entry inflates to its declared size), `.tar.gz` / `.tgz` / `.tar` with tar-stream behind
 * zlib's gunzip, a lone Markdown file as itself. Both libraries stream: nothing is inflated before
 * the limits allow it.
 *
 * Refused (the whole import fails, saying which entry and why): a path that is absolute, has `..`,
 * a backslash, a drive letter or a NUL (path traversal); more entries than `maxFiles`; an entry
 * larger than `maxFileBytes`; more than `maxBytes` unpacked in all; a zip entry that inflates more
 * than `maxRatio` times its compressed size (a zip bomb) — zip sizes are checked from the central
 * directory before anything is inflated, and again while inflating (yauzl's size validation), tar
 * sizes while gunzip streams. Left out and reported: links (symbolic and hard), devices, empty
 * folders, macOS resource forks (`__MACOSX/`, `._*`).
 */
export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export interface ArchiveLimits {
  maxFiles: number;
  maxBytes: number;
  maxFileBytes: number;
  maxRatio: number;
}

export const archiveLimits = (config: Settings = settings()): ArchiveLimits => {
  const { maxFiles, maxBytes, maxFileBytes, maxRatio } = config.imports;
  return { maxFiles, maxBytes, maxFileBytes, maxRatio };
};

export type ArchiveKind = 'zip' | 'tar.gz' | 'tar' | 'markdown';

/** What an upload holds, from its first bytes (the name breaks ties): null when none of the kinds. */
export function archiveKind(data: Uint8Array, name: string): ArchiveKind | null {
  if (data[0] === 0x50 && data[1] === 0x4b && (data[2] === 3 || data[2] === 5) && (data[3] === 4 || data[3] === 6)) return 'zip';
  if (data[0] === 0x1f && data[1] === 0x8b) return 'tar.gz';
  if (data.length >= 262 && Buffer.from(data.subarray(257, 262)).toString('latin1') === 'ustar') return 'tar';
  if (/\.(md|markdown|mdx)$/i.test(name) && !data.subarray(0, 8192).includes(0)) return 'markdown';
  return null;
}

/** The archive's path, checked: a relative path inside the archive (never above it), or an ArchiveError. */
export function safePath(raw: string): string {
  if (raw.includes('\0')) throw new ArchiveError(`archive entry ${JSON.stringify(raw)} has a NUL in its name`);
  if (raw.includes('\\')) throw new ArchiveError(`archive entry ${raw} has a backslash in its path`);
  if (raw.startsWith('/') || /^[a-zA-Z]:/.test(raw)) throw new ArchiveError(`archive entry ${raw} has an absolute path`);
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.includes('..')) throw new ArchiveError(`archive entry ${raw} points outside the archive (..)`);
  return parts.join('/');
}

const junk = (path: string) =>
  path.startsWith('__MACOSX/') || posix.basename(path).startsWith('._') || posix.basename(path) === '.DS_Store';

export interface ArchiveFiles {
  files: RepoFile[];
  skipped: { path: string; reason: string }[];
}

class Budget {
  files = 0;
  bytes = 0;
  constructor(private readonly limits: ArchiveLimits) {}
  entry(path: string, size: number) {
    if (++this.files > this.limits.maxFiles)
      throw new ArchiveError(`the archive has more than ${this.limits.maxFiles} files (LECTERN_IMPORT_MAX_FILES)`);
    if (size > this.limits.maxFileBytes)
      throw new ArchiveError(
        `archive entry ${path} is ${size} bytes, more than the ${this.limits.maxFileBytes} allowed per file (LECTERN_IMPORT_MAX_FILE_BYTES)`,
      );
    this.add(size);
  }
  add(size: number) {
    this.bytes += size;
    if (this.bytes > this.limits.maxBytes)
      throw new ArchiveError(`the archive unpacks to more than ${this.limits.maxBytes} bytes (LECTERN_IMPORT_MAX_UNPACKED_BYTES)`);
  }
}

async function readZip(data: Buffer, limits: ArchiveLimits): Promise<ArchiveFiles> {
  const { default: unzip } = await import('yauzl');
  return new Promise((done, fail) => {
    unzip.fromBuffer(data, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true }, (error, zip) => {
      if (error || !zip) return fail(new ArchiveError(`not a readable .zip archive (${error?.message ?? 'no entries'})`));
      const out: ArchiveFiles = { files: [], skipped: [] };
      const budget = new Budget(limits);
      // The central directory first: declared sizes and ratios, before inflating anything.
      if (zip.entryCount > limits.maxFiles) {
        zip.close();
        return fail(
          new ArchiveError(
            `the archive has ${zip.entryCount} entries, more than the ${limits.maxFiles} allowed (LECTERN_IMPORT_MAX_FILES)`,
          ),
        );
      }
      const stop = (e: unknown) => {
        zip.close();
        fail(e instanceof ArchiveError ? e : new ArchiveError(`the .zip archive could not be read: ${(e as Error).message}`));
      };
      zip.on('error', stop);
      zip.on('end', () => done(out));
      zip.on('entry', (entry: yauzl.Entry) => {
        try {
          const path = safePath(entry.fileName);
          if (entry.fileName.endsWith('/') || !path) return zip.readEntry();
          // Unix mode in the high bits of the external attributes: 0o120000 is a symbolic link.
          const mode = (entry.externalFileAttributes >>> 16) & 0o170000;
          if (mode === 0o120000) {
            out.skipped.push({ path, reason: 'a symbolic link: links are not followed' });
            return zip.readEntry();
          }
          if (junk(path)) return zip.readEntry();
          budget.entry(path, entry.uncompressedSize);
          if (entry.uncompressedSize > 1024 * 1024 && entry.uncompressedSize > limits.maxRatio * Math.max(1, entry.compressedSize)) {
            throw new ArchiveError(
              `archive entry ${path} inflates ${Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize))} times its size, more than ${limits.maxRatio} (LECTERN_IMPORT_MAX_RATIO): refused as a zip bomb`,
            );
          }
          zip.openReadStream(entry, (err, stream) => {
            if (err || !stream) return stop(err ?? new Error('no stream'));
            const chunks: Buffer[] = [];
            let size = 0;
            stream.on('data', (chunk: Buffer) => {
              size += chunk.length;
              // yauzl refuses an entry longer than declared; this is the belt to its braces.
              if (size > entry.uncompressedSize) stream.destroy(new ArchiveError(`archive entry ${path} is larger than it declares`));
              else chunks.push(chunk);
            });
            stream.on('error', stop);
            stream.on('end', () => {
              out.files.push({ path, data: new Uint8Array(Buffer.concat(chunks)) });
              zip.readEntry();
            });
          });
        } catch (e) {
          stop(e);
        }
      });
      zip.readEntry();
    });
  });
}

async function readTar(data: Buffer, gzipped: boolean, limits: ArchiveLimits): Promise<ArchiveFiles> {
  const out: ArchiveFiles = { files: [], skipped: [] };
  const budget = new Budget(limits);
  const { default: tar } = await import('tar-stream');
  const extract = tar.extract();
  const source = Readable.from([data]);
  let unpacked = 0;
  const gunzip = gzipped ? createGunzip() : null;
  // The decompressed stream is counted as it flows: a gzip bomb stops at the limit, not at the end.
  gunzip?.on('data', (chunk: Buffer) => {
    unpacked += chunk.length;
    if (unpacked > limits.maxBytes + 1024 * 1024)
      gunzip.destroy(new ArchiveError(`the archive unpacks to more than ${limits.maxBytes} bytes (LECTERN_IMPORT_MAX_UNPACKED_BYTES)`));
  });
  const done = new Promise<void>((resolve, reject) => {
    extract.on('finish', resolve);
    extract.on('error', reject);
    gunzip?.on('error', (e) => {
      extract.destroy(e);
      reject(e);
    });
  });
  (gunzip ? source.pipe(gunzip) : source).pipe(extract);
  extract.on('entry', (header, stream, next) => {
    stream.on('error', () => undefined); // the extract's own error says what went wrong
    const drain = () => {
      stream.on('end', next);
      stream.resume();
    };
    try {
      const path = safePath(header.name);
      if (header.type === 'directory' || !path || header.type === 'pax-header' || header.type === 'pax-global-header') return drain();
      if (header.type !== 'file' && header.type !== 'contiguous-file') {
        out.skipped.push({ path, reason: `a ${header.type ?? 'special'} entry: only regular files are read` });
        return drain();
      }
      if (junk(path)) return drain();
      budget.entry(path, header.size ?? 0);
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        out.files.push({ path, data: new Uint8Array(Buffer.concat(chunks)) });
        next();
      });
    } catch (e) {
      extract.destroy(e as Error);
    }
  });
  try {
    await done;
  } catch (e) {
    throw e instanceof ArchiveError
      ? e
      : new ArchiveError(`the ${gzipped ? '.tar.gz' : '.tar'} archive could not be read: ${(e as Error).message}`);
  }
  return out;
}

/** The files of an upload (see above). */
export async function readArchive(data: Uint8Array, name: string, limits = archiveLimits()): Promise<ArchiveFiles> {
  const kind = archiveKind(data, name);
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (kind === 'zip') return readZip(buffer, limits);
  if (kind === 'tar.gz' || kind === 'tar') return readTar(buffer, kind === 'tar.gz', limits);
  if (kind === 'markdown')
    return { files: [{ path: safePath(posix.basename(name).replace(/\.mdx$/i, '.md')) || 'README.md', data }], skipped: [] };
  throw new ArchiveError(`${name} is not a .zip, .tar.gz or Markdown file`);
}

// ---------------------------------------------------------------------------------------------
// Which folder holds the docs
// ---------------------------------------------------------------------------------------------

const text = (data: Uint8Array) => new TextDecoder().decode(data);
const md = (path: string) => /\.md$/i.test(path);

type NavItem = string | Record<string, string | NavItem[]>;

/** MkDocs' `nav` as a SUMMARY.md: top-level sections (after the first entry) are groups, nested sections the page of their first file holding the others. */
function summaryOfNav(nav: NavItem[]): string {
  const lines: string[] = ['# Table of contents', ''];
  const item = (title: string | undefined, target: string, depth: number) =>
    lines.push(`${'  '.repeat(depth)}* [${title ?? ''}](${target})`); // untitled: the page's own heading
  const walk = (items: NavItem[], depth: number) => {
    for (const entry of items) {
      if (typeof entry === 'string') item(undefined, entry, depth);
      else
        for (const [title, value] of Object.entries(entry)) {
          if (typeof value === 'string') item(title, value, depth);
          else if (Array.isArray(value) && depth === 0 && lines.length > 2) {
            lines.push('', `## ${title}`, '');
            walk(value, 0);
          } else if (Array.isArray(value)) {
            const first =
              value.find((v): v is string => typeof v === 'string') ??
              value.map((v) => (typeof v === 'object' ? Object.values(v).find((x) => typeof x === 'string') : undefined)).find(Boolean);
            if (typeof first !== 'string') continue;
            item(title, first, depth);
            walk(
              value.filter((v) => v !== first && !(typeof v === 'object' && Object.values(v).includes(first))),
              depth + 1,
            );
          }
        }
    }
  };
  walk(nav, 0);
  return `${lines.join('\n')}\n`;
}

/**
 * Finds the docs in an archive's files and returns them as a repository for git-sync's layout
 * reader, with the folder to read:
 * - one top-level folder around everything (`project-main/`) is looked into;
 * - a `.gitbook.yaml` or a `SUMMARY.md` (the shallowest) marks a Git-layout folder;
 * - an `mkdocs.yml` names its `docs_dir` (default `docs`), and its `nav` becomes a SUMMARY.md;
 * - a Docusaurus site (`docusaurus.config.*`) or any `docs/` folder with Markdown: that folder;
 * - else the top. `.mdx` files are read as Markdown (renamed `.md`); a folder's `index.md` is its
 *   page where it has no README.md.
 */
export function docsFolder(input: RepoFile[]): { files: RepoFile[]; folder: string; notes: { path: string; reason: string }[] } {
  let files = input.map((f) => ({ path: f.path.replace(/\.mdx$/i, '.md'), data: f.data }));
  const notes: { path: string; reason: string }[] = [];
  const tops = new Set(files.map((f) => f.path.split('/')[0]));
  if (tops.size === 1 && files.every((f) => f.path.includes('/'))) {
    const top = [...tops][0]!;
    files = files.map((f) => ({ path: f.path.slice(top.length + 1), data: f.data }));
  }
  const byPath = new Map(files.map((f) => [f.path, f]));
  const depth = (p: string) => p.split('/').length;
  const shallowest = (name: string) =>
    files.filter((f) => posix.basename(f.path) === name).sort((a, b) => depth(a.path) - depth(b.path))[0];
  const dirOf = (p: string) => (posix.dirname(p) === '.' ? '' : posix.dirname(p));
  let folder = '';
  const marker = shallowest('.gitbook.yaml') ?? shallowest('SUMMARY.md');
  if (marker) folder = dirOf(marker.path);
  else if (byPath.has('mkdocs.yml') || byPath.has('mkdocs.yaml')) {
    let config: { docs_dir?: unknown; nav?: unknown } = {};
    try {
      config = (YAML.parse(text((byPath.get('mkdocs.yml') ?? byPath.get('mkdocs.yaml'))!.data)) as typeof config) ?? {};
    } catch {
      notes.push({ path: 'mkdocs.yml', reason: 'could not be read as YAML: the docs folder is read without its nav' });
    }
    folder = typeof config.docs_dir === 'string' ? config.docs_dir.replace(/^\.?\/+|\/+$/g, '') : 'docs';
    if (Array.isArray(config.nav))
      files.push({
        path: folder ? `${folder}/SUMMARY.md` : 'SUMMARY.md',
        data: new TextEncoder().encode(summaryOfNav(config.nav as NavItem[])),
      });
  } else if (files.some((f) => f.path.startsWith('docs/') && md(f.path))) folder = 'docs';
  const prefix = folder ? `${folder}/` : '';
  const inside = files.filter((f) => f.path.startsWith(prefix));
  // A folder's index.md is its page (MkDocs, Docusaurus) where there is no README.md: told through a .gitbook.yaml.
  const hasConfig = inside.some((f) => f.path === `${prefix}.gitbook.yaml`);
  const readmes = inside.filter((f) => /(^|\/)readme\.md$/i.test(f.path)).length;
  const indexes = inside.filter((f) => /(^|\/)index\.md$/.test(f.path)).length;
  if (!hasConfig && indexes > readmes)
    files.push({
      path: `${prefix}.gitbook.yaml`,
      data: new TextEncoder().encode('root: ./\nstructure:\n  readme: index.md\n  summary: SUMMARY.md\n'),
    });
  return { files, folder, notes };
}
