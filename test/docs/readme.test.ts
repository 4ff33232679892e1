import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { settingNames } from '../../src/config.ts';

const root = resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** The lines outside fenced code blocks: a `# 201 …` inside a bash block is no heading, a `[x](y)` there no link. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** GitHub's heading anchors (github-slugger): lower-cased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const plain = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Relative link targets in prose, inline code left out. */
function relativeLinks(text: string): string[] {
  return proseLines(text).flatMap((line) =>
    [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target)),
  );
}

const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];

describe('README and docs/', () => {
  it('keep the README a front door of at most 220 lines', () => {
    const lines = readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(220);
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of files) {
      const from = relative(root, file);
      for (const target of relativeLinks(readFileSync(file, 'utf8'))) {
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        if (!existsSync(linked)) {
          broken.push(`${from}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && linked.endsWith('.md') && !anchors(readFileSync(linked, 'utf8')).has(anchor)) {
          broken.push(`${from}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('name every setting the service reads, in the README and with its meaning in docs/configuration.md', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const configuration = readFileSync(join(root, 'docs/configuration.md'), 'utf8');
    expect(settingNames.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
    expect(settingNames.filter((name) => !configuration.includes(`\`${name}\``))).toEqual([]);
  });

  it('cite no document outside the repository as "the spec"', () => {
    const citing = files.filter((file) => /\bthe spec\b|\bspec's\b/i.test(readFileSync(file, 'utf8')));
    expect(citing.map((file) => relative(root, file))).toEqual([]);
  });
});
