import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig, settingsSchema } from '../../src/config.js';
import { DOC, END, settingsTable, START, withTable } from '../../scripts/print-settings.js';

describe('the settings schema', () => {
  it('docs/running.md holds the table printed from the schema (else: tsx scripts/print-settings.ts --write)', () => {
    const doc = fs.readFileSync(DOC, 'utf8');
    expect(doc).toContain(START);
    expect(doc).toContain(END);
    expect(doc.slice(doc.indexOf(START), doc.indexOf(END) + END.length)).toBe(withTable(`${START}${END}`).trim());
  });

  it('the table notices a setting missing from the docs', () => {
    const doc = fs.readFileSync(DOC, 'utf8');
    const stale = doc.replace(/^\| `LECTERN_RATE_LIMIT` .*\n/m, '');
    expect(stale).not.toBe(doc);
    expect(withTable(stale)).not.toBe(stale);
  });

  it('describes every variable', () => {
    for (const [name, schema] of Object.entries(settingsSchema.shape)) expect(schema.description, name).toBeTruthy();
    expect(settingsTable().split('\n')).toHaveLength(Object.keys(settingsSchema.shape).length + 2);
  });

  it('gives defaults for an empty environment, and takes empty values as unset', () => {
    const config = readConfig({});
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8080, publicUrl: 'http://127.0.0.1:8080', graphiql: true, trustProxy: false });
    expect(config.rateLimit.limit).toBe(1200);
    expect(readConfig({ PORT: '', LECTERN_RATE_LIMIT: ' ' })).toMatchObject({ port: 8080, rateLimit: { limit: 1200 } });
    expect(readConfig({ LECTERN_PUBLIC_URL: 'https://docs.example.com/', LECTERN_GRAPHIQL: 'false' })).toMatchObject({
      publicUrl: 'https://docs.example.com',
      graphiql: false,
    });
  });

  it('refuses a bad value with a message naming the variable and the value', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ PORT: 'http' }, /^PORT must be a whole number from 0 to 65535 \(got "http"\)$/],
      [{ LECTERN_RATE_LIMIT: '-1' }, /^LECTERN_RATE_LIMIT must be a whole number/],
      [{ LECTERN_UPLOAD_MAX_BYTES: 'lots' }, /^LECTERN_UPLOAD_MAX_BYTES must be a whole number .*\(got "lots"\)/],
      [{ LECTERN_TRUST_PROXY: 'maybe' }, /^LECTERN_TRUST_PROXY must be 1 or 0/],
      [{ LECTERN_PUBLIC_URL: 'docs.example.com' }, /^LECTERN_PUBLIC_URL must be an http\(s\) URL/],
      [{ LOG_FORMAT: 'xml' }, /^LOG_FORMAT must be json or text/],
      [{ LECTERN_OIDC_ISSUER: 'https://id.example.com' }, /LECTERN_OIDC_ISSUER and LECTERN_OIDC_CLIENT_ID must be set together/],
    ];
    for (const [env, message] of bad) {
      expect(() => readConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => readConfig(env), JSON.stringify(env)).toThrow(message);
    }
  });

  it('names every bad variable at once, and never echoes a secret', () => {
    const attempt = () => readConfig({ PORT: 'x', LECTERN_SECRET_KEY: 'short-secret', DATABASE_URL: 'mysql://u:pw@h/db' });
    expect(attempt).toThrow(/PORT .*; DATABASE_URL must be a postgres:\/\/ URL; LECTERN_SECRET_KEY must be at least 32 characters/);
    expect(attempt).not.toThrow(/short-secret|pw@h/);
  });
});
