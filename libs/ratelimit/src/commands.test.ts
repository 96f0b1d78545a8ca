import { describe, expect, it } from 'vitest';
import { decodeReply, encodeLimits, encodeOperations, operationKeys, type LimiterOperation } from './commands.ts';
import { keyScopeKeys, tenantScopeKeys } from './keys.ts';

const tenantKeys = ['t:req', 't:tok', 't:conc', 't:budget'];
const keyKeys = ['k:req', 'k:tok', 'k:conc', 'k:budget'];
const limits = ['60', '', '10', '', ''];

function admit(requestId: string, cost: string, keyLimits = limits): LimiterOperation {
  return { code: 'a', keys: [...tenantKeys, ...keyKeys] as never, args: ['', requestId, cost, '60000', ...limits, ...keyLimits] as never };
}

function reconcile(delta: string, admittedAt: string, keyHasTpm = '1'): LimiterOperation {
  return { code: 'c', keys: ['t:tok', 't:budget', 'k:tok', 'k:budget'], args: ['', delta, admittedAt, '1', '0', keyHasTpm, '0'] };
}

describe('encodeOperations', () => {
  it("should send one key's admissions under the same limits with their keys and limits once", () => {
    const { keys, codes, args } = encodeOperations([admit('r1', '10'), admit('r2', '20'), admit('r3', '0')]);
    expect(codes).toBe('aAA');
    expect(keys).toEqual([...tenantKeys, ...keyKeys]);
    expect(args).toEqual(['', 'r1', '10', '60000', ...limits, ...limits, 'r2', '20', 'r3', '0']);
  });

  it('should send an admission whole when its limits differ from the last one sent whole', () => {
    const other = ['5', '', '', '', ''];
    const { keys, codes } = encodeOperations([admit('r1', '1'), admit('r2', '1', other), admit('r3', '1', other), admit('r4', '1')]);
    expect(codes).toBe('aaAa');
    expect(keys).toHaveLength(24);
  });

  it('should send an admission whole when another moment is asked for (tests drive a fake clock)', () => {
    const later = admit('r2', '1');
    later.args[0] = '1000';
    expect(encodeOperations([admit('r1', '1'), later]).codes).toBe('aa');
  });

  it('should repeat each kind against the last of its own kind', () => {
    const release = (requestId: string): LimiterOperation => ({ code: 'r', keys: ['t:conc', 'k:conc'], args: [requestId] });
    const { keys, codes, args } = encodeOperations([
      release('r1'),
      admit('r5', '1'),
      reconcile('-4', '17'),
      release('r2'),
      reconcile('3', ''),
      reconcile('3', '', '0'),
      admit('r6', '2'),
    ]);
    expect(codes).toBe('racRCcA');
    expect(keys).toHaveLength(2 + 8 + 4 + 4);
    expect(args).toEqual([
      ...['r1'],
      ...admit('r5', '1').args,
      ...['', '-4', '17', '1', '0', '1', '0'],
      ...['r2'],
      ...['3', ''],
      ...['', '3', '', '1', '0', '0', '0'],
      ...['r6', '2'],
    ]);
  });
});

describe('decodeReply', () => {
  it('should read the integers of a batch as Redis replies them one by one', () => {
    expect(decodeReply('')).toEqual([]);
    expect(decodeReply('1,-1,-1,0,0,1000000000,999999999,1764720000000')).toEqual([1, -1, -1, 0, 0, 1_000_000_000, 999_999_999, 1_764_720_000_000]);
    // Redis turns a Lua number into an integer reply by truncating it; the string keeps Lua's digits.
    expect(decodeReply('12.75,-1.5,1e+15')).toEqual([12, -1, 1e15]);
  });
});

describe('operationKeys', () => {
  it("should give every operation on one API key the same arrays of its tenant's and its own names", () => {
    const tenant = tenantScopeKeys('acme');
    const key = keyScopeKeys('acme', 'key-1');
    const keys = operationKeys('acme', 'key-1');
    expect(keys.admit).toEqual([tenant.requests, tenant.tokens, tenant.concurrency, tenant.budget, key.requests, key.tokens, key.concurrency, key.budget]);
    expect(keys.release).toEqual([tenant.concurrency, key.concurrency]);
    expect(keys.reconcile).toEqual([tenant.tokens, tenant.budget, key.tokens, key.budget]);
    expect(operationKeys('acme', 'key-1')).toBe(keys);
    expect(Object.isFrozen(keys.admit)).toBe(true);
    // Another key of the tenant, or the same key id under another tenant, has names of its own.
    expect(operationKeys('acme', 'key-2').admit.slice(4)).not.toEqual(keys.admit.slice(4));
    expect(operationKeys('acme', 'key-2').admit.slice(0, 4)).toEqual(keys.admit.slice(0, 4));
    expect(operationKeys('globex', 'key-1').admit).not.toContain(key.requests);
  });
});

describe('encodeLimits', () => {
  it('should encode a limit set once, absent limits as empty strings', () => {
    const limits = { rpm: 60, concurrency: 0, monthlyTokens: 1e9 };
    const encoded = encodeLimits(limits);
    expect(encoded).toEqual(['60', '', '0', '', '1000000000']);
    expect(encodeLimits(limits)).toBe(encoded);
    expect(encodeLimits({ ...limits, rpm: 61 })).toEqual(['61', '', '0', '', '1000000000']);
  });
});
