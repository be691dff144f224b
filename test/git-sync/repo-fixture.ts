import type { RepoFile } from '../../src/modules/git-sync/repository-layout.js';

/** A realistic GitBook repository in the layout Lectern writes: docs under docs/, groups, nesting, assets. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000a49444154789c6360000000020001e221bc330000000049454e44ae426082',
  'hex',
);
export const REPO: Record<string, string | Buffer> = {
  '.gitbook.yaml':
    'root: ./docs/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  old/setup: getting-started/install.md\n',
  'package.json': '{"name":"not-docs"}\n',
  'docs/SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Introduction](README.md)',
    '* [Getting started](getting-started/README.md)',
    '  * [Install](getting-started/install.md)',
    '    * [On Linux](getting-started/install/linux.md)',
    '  * [Configure](getting-started/configure.md)',
    '',
    '## API reference',
    '',
    '* [Authentication](api-reference/authentication.md)',
    '* [Errors & limits](api-reference/errors.md)',
    '* [Status page](https://status.example.com)',
    '',
    '## Guides',
    '',
    '* [Writing \\[advanced\\] docs](guides/advanced.md)',
    '',
  ].join('\n'),
  'docs/README.md': [
    '---',
    'description: What Lectern is and how to start.',
    'icon: book',
    '---',
    '',
    '# Introduction',
    '',
    'Read [the install guide](getting-started/install.md#requirements) first, then [configure](getting-started/configure.md).',
    '',
    '![Architecture](.gitbook/assets/diagram.png)',
    '',
    '{% hint style="info" %}',
    'Lectern is **self-hosted**.',
    '{% endhint %}',
    '',
    '{% include ".gitbook/includes/support.md" %}',
    '',
  ].join('\n'),
  'docs/getting-started/README.md': '# Getting started\n\nSee [Install](install.md) and [the API](../api-reference/authentication.md).\n',
  'docs/getting-started/install.md': [
    '---',
    'hidden: true',
    '---',
    '',
    '# Install',
    '',
    '## Requirements',
    '',
    '| OS | Supported |',
    '| --- | --- |',
    '| Linux | yes |',
    '| macOS | yes |',
    '',
    '```bash',
    'npm install -g lectern # [not a link](nowhere.md)',
    '```',
    '',
    'Next: [Linux](install/linux.md), back to [the start](../README.md).',
    '',
    '{% include "../.gitbook/includes/footer.md" %}',
    '',
  ].join('\n'),
  'docs/getting-started/install/linux.md':
    '# On Linux\n\n<figure><img src="../../.gitbook/assets/diagram.png" alt=""><figcaption><p>Diagram</p></figcaption></figure>\n\nUp: [Install](../install.md#requirements)\n',
  'docs/getting-started/configure.md':
    '# Configure\n\nSet `PORT`. Reference-style [link][auth].\n\n[auth]: ../api-reference/authentication.md\n',
  'docs/api-reference/authentication.md':
    '---\ndescription: Tokens and scopes.\n---\n\n# Authentication\n\nUse a bearer token. Download [the schema](../.gitbook/assets/schema.json). External: [GitBook](https://gitbook.com/docs).\n',
  // Front matter Lectern has no field for (GitBook's page layout, a tool's key), before a known key: kept, in order.
  'docs/api-reference/errors.md':
    '---\nlayout:\n  title:\n    visible: true\n  outline:\n    visible: false\nx-owner: team-api\ndescription: Codes and limits.\n---\n\n# Errors\n\n1. 400\n2. 401\n',
  'docs/guides/advanced.md': '# Advanced\n\nSee the [intro](../README.md) and [itself](advanced.md#top).\n',
  'docs/.gitbook/assets/diagram.png': PNG,
  'docs/.gitbook/assets/schema.json': '{"openapi":"3.1.0"}\n',
  // Reusable contents: a title in front matter (or the one the file name gives), links relative to the includes folder.
  'docs/.gitbook/includes/support.md':
    '---\ntitle: Support banner\n---\n\nStuck? See [the errors](../../api-reference/errors.md#top) and ![the diagram](../assets/diagram.png).\n',
  'docs/.gitbook/includes/footer.md': '***\n\nMade with Lectern.\n',
};

export const repoFiles = (repo: Record<string, string | Buffer>): RepoFile[] =>
  Object.entries(repo).map(([path, data]) => ({ path, data: typeof data === 'string' ? Buffer.from(data) : data }));
