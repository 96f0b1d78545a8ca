#!/usr/bin/env node
// Development runs the TypeScript sources directly (Node 24 type stripping); the image runs the
// same tree with the types stripped at build time (scripts/strip-types.mjs).
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(`switchyard needs Node.js 24 or newer (this is ${process.version}).\n`);
  process.exit(1);
}
// Before the gateway loads: V8 decides how to allocate from what it sees from the start.
const { tuneV8 } = await import('@switchyard/gateway/tune-v8');
tuneV8();
const { main } = await import('@switchyard/gateway');
await main(process.argv.slice(2));
