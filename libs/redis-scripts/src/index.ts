export { inlineIncludes, loadScript, type LoadedScript } from './load-script.ts';
export { createTurnBatcher, type SendBatch } from './turn-batcher.ts';
