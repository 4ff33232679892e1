/**
 * Lists every import that runs back up the layers (.dependency-cruiser.cjs, docs/architecture.md): a module
 * importing a layer above its own, the known ones that lint:deps lets pass included, and counts them.
 * `npm run -s lint:layers`.
 */
import { execFileSync } from 'node:child_process';

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

const output = execFileSync(
  'node_modules/.bin/depcruise',
  ['src', 'scrapers', 'schema', 'outbound', 'tools', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
  { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
);
const violations = (JSON.parse(output) as { summary: { violations: Violation[] } }).summary.violations;
const backUps = violations.filter((violation) => violation.rule.name.startsWith('back-up:'));
for (const { from, to, rule } of backUps) console.log(`${rule.name.slice('back-up:'.length).padEnd(32)} ${from} → ${to}`);
console.log(`${backUps.length} imports run back up`);
