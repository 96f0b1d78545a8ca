import { describe, expect, it } from 'vitest';
import { parseArguments, UsageError } from './parse-arguments.ts';

describe('parseArguments', () => {
  it('should read flags, with environment twins as fallback', () => {
    expect(parseArguments(['all', '--port', '9000'], { SWITCHYARD_CONFIG: 'c.yaml', HOST: '127.0.0.1' })).toEqual({
      target: 'all',
      config: 'c.yaml',
      port: 9000,
      host: '127.0.0.1',
    });
    expect(parseArguments(['router', '--config=x.yaml'], { PORT: '81' })).toMatchObject({ config: 'x.yaml', port: 81, host: '0.0.0.0' });
  });

  it('should refuse unknown targets, flags and bad ports', () => {
    expect(() => parseArguments(['everything'], {})).toThrow(UsageError);
    expect(() => parseArguments(['all', '--verbose'], {})).toThrow(UsageError);
    expect(() => parseArguments(['all', '--port', 'x'], {})).toThrow(UsageError);
  });
});
