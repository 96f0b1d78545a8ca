export { bindScript, type RunScript } from './bind-script.ts';
export { inlineIncludes, loadScript, type LoadedScript, type ScriptLibrary } from './load-script.ts';
export { createTurnBatcher, type SendBatch } from './turn-batcher.ts';
