export * from './parse-data-url.ts';
export * from './parse-tool-arguments.ts';
export * from './map-reasoning-effort.ts';
export * from './create-id.ts';
export * from './zod-issue-to-error.ts';
export * from './map-tool-call-id.ts';
export * from './keep-alive.ts';
export * from './openai-json-schema-format.ts';
