#!/usr/bin/env node
// Copies the monitoring files the Helm chart ships into the chart, because Helm's .Files can
// only read inside the chart directory:
//
//   deploy/grafana/dashboards/*.json  →  helm/switchyard/dashboards/*.json   (mirrored)
//   deploy/prometheus/alerts.yaml     →  helm/switchyard/files/alerts.yaml
//
// deploy/ is the source of truth; the chart copies are generated, committed, and never edited
// by hand. A copy whose source is gone is deleted.
//
//   node scripts/sync-dashboards.mjs           write the copies
//   node scripts/sync-dashboards.mjs --check   change nothing; exit 1 if a copy is missing,
//                                              stale or different (run in the tests)
//   --root DIR                                 another repository root (the tests use it)
//
// Plain Node, no dependencies. Exit codes: 0 in sync (or synced), 1 out of sync, 2 bad usage
// or a dashboard that is not valid JSON.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const usage = 'Usage: node scripts/sync-dashboards.mjs [--check] [--root DIR]';

function parseArguments(argv) {
  const options = { check: false, root: resolve(import.meta.dirname, '..') };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--check') options.check = true;
    else if (argument === '--root' && argv[index + 1] !== undefined) options.root = resolve(argv[++index]);
    else if (argument === '--help' || argument === '-h') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    } else {
      process.stderr.write(`Unknown argument '${argument}'.\n${usage}\n`);
      process.exit(2);
    }
  }
  return options;
}

/** Every file the chart should hold, as { source, target } absolute paths (source may be absent). */
function plan(root) {
  const dashboardsSource = join(root, 'deploy/grafana/dashboards');
  const dashboardsTarget = join(root, 'helm/switchyard/dashboards');
  const jsonIn = (directory) =>
    existsSync(directory) ? readdirSync(directory).filter((name) => name.endsWith('.json')).sort() : [];
  const names = new Set([...jsonIn(dashboardsSource), ...jsonIn(dashboardsTarget)]);
  return [
    ...[...names].sort().map((name) => ({ source: join(dashboardsSource, name), target: join(dashboardsTarget, name) })),
    { source: join(root, 'deploy/prometheus/alerts.yaml'), target: join(root, 'helm/switchyard/files/alerts.yaml') },
  ];
}

function readOrUndefined(file) {
  return existsSync(file) ? readFileSync(file) : undefined;
}

function main() {
  const options = parseArguments(process.argv.slice(2));
  const show = (file) => relative(options.root, file);
  const problems = [];
  let copied = 0;
  let present = 0;
  for (const { source, target } of plan(options.root)) {
    const wanted = readOrUndefined(source);
    const actual = readOrUndefined(target);
    if (wanted !== undefined) {
      present++;
      if (source.endsWith('.json')) {
        try {
          JSON.parse(wanted.toString('utf8'));
        } catch (error) {
          process.stderr.write(`${show(source)}: not valid JSON (${error.message})\n`);
          process.exit(2);
        }
      }
    }
    if (wanted === undefined && actual === undefined) continue;
    if (wanted !== undefined && actual !== undefined && wanted.equals(actual)) continue;
    const problem =
      wanted === undefined
        ? `${show(target)} is stale: ${show(source)} does not exist`
        : actual === undefined
          ? `${show(target)} is missing (copy of ${show(source)})`
          : `${show(target)} differs from ${show(source)}`;
    if (options.check) {
      problems.push(problem);
      continue;
    }
    if (wanted === undefined) {
      rmSync(target);
    } else {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, wanted);
    }
    copied++;
    process.stdout.write(`synced: ${problem}\n`);
  }
  if (!existsSync(join(options.root, 'deploy/prometheus/alerts.yaml'))) {
    process.stdout.write('note: deploy/prometheus/alerts.yaml does not exist (yet): the chart has no alerts to ship.\n');
  }
  if (problems.length > 0) {
    process.stderr.write(
      `The chart's copies of the monitoring files are out of date:\n${problems.map((line) => `  - ${line}`).join('\n')}\n` +
        'Run `node scripts/sync-dashboards.mjs` and commit the result.\n',
    );
    process.exit(1);
  }
  process.stdout.write(
    options.check ? `in sync (${present} source file(s)).\n` : `done: ${copied} file(s) changed, ${present} source file(s).\n`,
  );
}

main();
