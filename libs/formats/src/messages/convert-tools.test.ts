import type { CanonicalRequest, CanonicalTool } from '@switchyard/canonical';
import { describe, expect, it } from 'vitest';
import { encodeTools } from './convert-tools.ts';

const weather: CanonicalTool = { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: {} } };
const time: CanonicalTool = { name: 'get_time', parameters: {} };

function encode(extra: Partial<CanonicalRequest>) {
  return encodeTools({ model: 'm', messages: [], stream: false, tools: [weather, time], ...extra });
}

describe('encodeTools', () => {
  it('should send tools with an object input_schema and strict only when true', () => {
    expect(encode({ tools: [weather, { ...time, strict: true }, { ...time, name: 'loose', strict: false }] }).tools).toEqual([
      { name: 'get_weather', description: 'Current weather', input_schema: { type: 'object', properties: {} } },
      { name: 'get_time', input_schema: { type: 'object', properties: {} }, strict: true },
      { name: 'loose', input_schema: { type: 'object', properties: {} } },
    ]);
  });

  it('should map each tool choice, keeping none', () => {
    expect(encode({ toolChoice: { type: 'auto' } }).tool_choice).toEqual({ type: 'auto' });
    expect(encode({ toolChoice: { type: 'required' } }).tool_choice).toEqual({ type: 'any' });
    expect(encode({ toolChoice: { type: 'tool', name: 'get_time' } }).tool_choice).toEqual({ type: 'tool', name: 'get_time' });
    expect(encode({ toolChoice: { type: 'none' } }).tool_choice).toEqual({ type: 'none' });
    expect(encode({}).tool_choice).toBeUndefined();
  });

  it('should express parallelToolCalls false as disable_parallel_tool_use', () => {
    expect(encode({ parallelToolCalls: false }).tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(encode({ parallelToolCalls: false, toolChoice: { type: 'required' } }).tool_choice).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    expect(encode({ parallelToolCalls: false, toolChoice: { type: 'none' } }).tool_choice).toEqual({ type: 'none' });
  });

  it('should send only the allowed tools', () => {
    expect(encode({ allowedTools: ['get_time'] }).tools).toEqual([{ name: 'get_time', input_schema: { type: 'object', properties: {} } }]);
  });

  it('should drop a tool choice without tools unless it forces a tool', () => {
    expect(encode({ tools: [], toolChoice: { type: 'auto' } })).toEqual({});
    expect(() => encode({ tools: [], toolChoice: { type: 'required' } })).toThrow(expect.objectContaining({ param: 'tool_choice' }));
  });

  it('should append server tools only from messages extensions', () => {
    const server = { type: 'web_search_20250305', name: 'web_search' };
    expect(encode({ tools: [], extensions: { format: 'messages', fields: { tools: [server] } } }).tools).toEqual([server]);
    expect(encode({ tools: [], extensions: { format: 'responses', fields: { tools: [server] } } }).tools).toBeUndefined();
  });
});
